"""One submission graded: exercise by exercise, check by check, examples drawn once and
replayed, hypothesis shrinking a failure, named mistakes confirmed, a release's recorded checks,
kept verdicts and --plot's pictures.

May import: every stage below: common, sandbox, specs, submissions, checks, loader, outcomes."""
