"""Statuses as the course's languages say them, for reports written wholly in one language."""

from __future__ import annotations

STATUS = {
    "id": {
        "passed": "lulus",
        "failed": "gagal",
        "error": "galat",
        "timeout": "melebihi waktu",
        "missing": "tidak ada",
        "skipped": "belum dinilai",
    },
    "en": {
        "passed": "passed",
        "failed": "failed",
        "error": "error",
        "timeout": "timed out",
        "missing": "missing",
        "skipped": "not awarded",
    },
}
ICON = {"passed": "✔", "failed": "✘", "error": "!", "timeout": "⏱", "missing": "?", "skipped": "–"}
