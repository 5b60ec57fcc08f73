"""What an exercise spec is (the frozen model of exercise.yaml), its reference expressions
evaluated by torch, and every hypothesis strategy the grader draws with.

May import: grader.common."""
