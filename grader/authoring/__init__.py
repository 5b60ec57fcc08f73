"""For exercise authors: the self-audit (validate: keys and variants keep full marks, every
mutant loses points) and `grader new` scaffolding.

May import: grading and every stage below it."""
