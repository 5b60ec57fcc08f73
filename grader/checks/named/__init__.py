"""What the grader names beyond a value that differs: a mistake recognised in the values
(diagnose: a constant factor, a flipped sign, an old gradient kept) and a method counted while
the function ran (counted: forward passes, backward passes, a backward's work)."""
