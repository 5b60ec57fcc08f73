"""The students' repository derived from the teacher's (release), its self-check, the leak
scan, and the Gradescope autograder zip.

May import: grading and every stage below it, grader.report."""
