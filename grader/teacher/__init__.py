"""Code that computes answers, run only by the teacher's grader.

What lives here gives an exercise away: the gradient penalty and the mistakes students make with
it (penalty), the node torch's anomaly detection names (anomaly). The teacher's grader computes
references with it while it draws examples; `python -m grader release` leaves this folder out of
the students' copy, whose grader judges from the references it recorded instead
(grader/recorded.py). Nothing outside the teacher's paths (drawing, reference values) may import
it at module level: the released grader must load without it.
"""
