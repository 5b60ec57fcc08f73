"""Reading the course: exercise.yaml into the spec model with each check kind's validation,
exercise plugins (an exercise's own kinds and probes), config.yaml, the references' trial when
a spec loads, and the spec as students get it.

May import: grader.common, grader.sandbox, grader.specs, grader.submissions, grader.checks."""
