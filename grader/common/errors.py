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


def versions() -> dict:
    """The versions a bug report needs (each looked up without failing)."""
    import platform

    from grader import __version__

    out = {
        "grader": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
    for name in ("torch", "hypothesis"):
        try:
            out[name] = __import__(name).__version__
        except Exception as exc:  # a broken install is itself worth reporting
            out[name] = f"unavailable ({type(exc).__name__})"
    return out


def bug_report() -> str:
    """What follows the grader's own traceback: whose fault it is, what to send, and where."""
    found = ", ".join(f"{k} {v}" for k, v in versions().items())
    return (
        "Ini bug di grader, bukan kesalahanmu. Laporkan ke pengajarmu: salin seluruh pesan "
        "ini dan perintah yang kamu jalankan.\n"
        "This is a bug in the grader, not your mistake. Please report it to your teacher: "
        "copy this whole message and the command you ran.\n"
        f"Versions: {found}"
    )
