"""A student's files: finding an exercise's file in a submission (.py or notebook), the
scratch copy a worker sees, and the static scan for forbidden torch APIs.

May import: grader.common, grader.sandbox (the trap's API names), grader.specs."""
