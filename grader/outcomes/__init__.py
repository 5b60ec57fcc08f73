"""The result model every reporter reads (plain data), the course view of where a student
stands, numbers about a class, and the SQLite gradebook of batch runs.

May import: grader.common, grader.specs."""
