"""Why a student's file could not be imported, as the exercise's result says it."""

from __future__ import annotations

from grader.checks.messages import both, raised, tampered
from grader.grading.session import ImportFailure
from grader.specs.model import Text


def import_message(exercise, failure: ImportFailure) -> tuple[str, Text, list[str]]:
    """Why the file could not be imported: (exercise status, message, the student's lines)."""
    f = exercise.file
    if failure.kind == "timeout":
        return (
            "timeout",
            both(
                "Import {f} melebihi batas waktu (loop tak berujung di tingkat modul?).",
                "Importing {f} ran past the time limit (an endless loop at module level?).",
                f=f,
            ),
            [],
        )
    if failure.kind == "tampered":
        return "error", tampered(failure.error["names"]), []
    if failure.kind == "vanished":
        msg = both(
            "Proses berhenti saat mengimpor {f} tanpa status keluar (apakah kode itu "
            "membunuh proses induknya?).",
            "The process vanished while importing {f}, with no exit status (did the "
            "code kill its parent process?).",
            f=f,
        )
    elif failure.kind == "signal":
        msg = both(
            "Proses mati oleh sinyal {s} saat mengimpor {f} (crash).",
            "The process died by signal {s} while importing {f} (a crash).",
            s=failure.signal,
            f=f,
        )
    elif failure.kind == "memory":
        msg = both(
            "{f} kehabisan memori saat diimpor (batas per worker, termasuk proses anaknya).",
            "Importing {f} ran out of memory (the per-worker limit, its "
            "child processes included).",
            f=f,
        )
    elif failure.kind == "protocol":
        msg = both(
            "Proses pekerja mengirim data rusak saat mengimpor {f}.",
            "The worker process sent malformed data while importing {f}.",
            f=f,
        )
    elif failure.kind == "exit":
        msg = both(
            "{f} keluar saat diimpor (os._exit/exit, kode {c}). Jangan keluar dari "
            "program di tingkat modul.",
            "{f} exited while being imported (os._exit/exit, code {c}). Do not exit "
            "at module level.",
            f=f,
            c=failure.exit_code,
        )
    else:
        err = failure.error
        if err.get("type") in ("SystemExit", "KeyboardInterrupt"):
            msg = both(
                "{f} memanggil {k} saat diimpor. Jangan keluar dari program di tingkat modul.",
                "{f} raised {k} while being imported. Do not exit at module level.",
                f=f,
                k=err["type"],
            )
        else:
            msg = raised(err, f"import {f}", "import")
    return "error", msg, list(failure.error.get("traceback", ()))
