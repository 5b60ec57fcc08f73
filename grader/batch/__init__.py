"""A class: where its submissions are, grading them in parallel processes, the batch folder's
files, and merging shard outputs.

May import: grading and every stage below it, grader.report."""
