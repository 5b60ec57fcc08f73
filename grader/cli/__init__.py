"""The command line: parsing, exit codes and printing (main), the student's commands (course
view, hints, watch) and finding the working copy.

May import: every stage (the top of the stack)."""
