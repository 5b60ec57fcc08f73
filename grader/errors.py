"""Errors the grader reports to people: each names the place, the value and the fix."""

from __future__ import annotations


class GraderError(Exception):
    """A problem with the grader's input (config, spec, command line): exit code 2."""


class SpecError(GraderError):
    """A problem in a YAML file, located by file, line and key path."""

    def __init__(self, file, line: int | None, key: str, message: str):
        self.file, self.line, self.key, self.message = str(file), line, key, message
        where = self.file if line is None else f"{self.file}, line {line}"
        super().__init__(f"{where}, {key}: {message}" if key else f"{where}: {message}")
