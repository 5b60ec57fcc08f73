"""The grader's foundations: errors that name the place and the fix, YAML that remembers
where each value came from, text made safe, the wire format between grader and worker,
safe pickles of plain data, and the turns of threads that grade exercises at once.

May import: the standard library, torch; nothing else of the grader."""
