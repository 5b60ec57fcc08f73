"""The grader's foundations: errors that name the place and the fix, YAML that remembers
where each value came from, text made safe, the wire format between grader and worker, and
safe pickles of plain data.

May import: the standard library, torch; nothing else of the grader."""
