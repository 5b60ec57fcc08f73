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
        "not_started": "belum mulai",
    },
    "en": {
        "passed": "passed",
        "failed": "failed",
        "error": "error",
        "timeout": "timed out",
        "missing": "missing",
        "skipped": "not awarded",
        "not_started": "not started",
    },
}
ICON = {
    "passed": "✔",
    "failed": "✘",
    "error": "!",
    "timeout": "⏱",
    "missing": "?",
    "skipped": "–",
    "not_started": "·",
}
"""Beside the statuses, "not_started": an exercise the student has not
started (outcomes.progress.not_started), as the course view says it."""


def span(seconds: float, lang: str = "en") -> str:
    """A duration in words: 3 h 10 min, 2 d 4 h, 45 s (hr/j/mnt in Bahasa Indonesia)."""
    seconds = max(int(seconds), 0)
    d, rest = divmod(seconds, 86400)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    day, hour, minute = ("d", "h", "min") if lang == "en" else ("hr", "j", "mnt")
    if d:
        return f"{d} {day} {h} {hour}"
    if h:
        return f"{h} {hour} {m} {minute}"
    return f"{m} {minute}" if m else f"{s} s"


def late_words(late: dict, lang: str) -> str:
    """One line on a submission graded against a deadline (SubmissionResult.late): the commit
    graded, and how late the rest is (per exercise where exercises have deadlines of their
    own); a repository that could not be read says why."""
    if late.get("unreadable"):
        head = "could not be read" if lang == "en" else "tidak dapat dibaca"
        return f"{head}: {late['unreadable']}"
    per = late.get("exercises")
    if isinstance(per, dict) and per:
        return "; ".join(f"{k}: {_late_line(v, lang)}" for k, v in sorted(per.items()))
    return _late_line(late, lang)


def _late_line(late: dict, lang: str) -> str:
    short = str(late.get("commit", ""))[:10]
    later, after = int(late.get("later_commits") or 0), late.get("late_seconds") or 0
    penalty = float(late.get("penalty") or 0.0)
    if lang == "en":
        text = f"graded commit {short} ({late.get('committed', '?')})"
        if later:
            text += f"; late: {later} commit(s), {span(after, lang)} after the deadline"
            if not late.get("graded_late"):
                text += ", not graded"
        if penalty:
            text += f"; late penalty {penalty:.0%}"
        return text
    text = f"commit yang dinilai {short} ({late.get('committed', '?')})"
    if later:
        text += f"; terlambat: {later} commit, {span(after, lang)} setelah tenggat"
        if not late.get("graded_late"):
            text += ", tidak dinilai"
    if penalty:
        text += f"; potongan keterlambatan {penalty:.0%}"
    return text


GRADED = {
    "id": {
        "notebook": "Yang dinilai: {file} (notebookmu); {others} masih seperti saat dibagikan.",
        "both": "Yang dinilai: {file}. {others} juga kamu ubah, tetapi tidak dinilai: bila "
        "file .py dan notebook sama-sama diubah, file .py yang dinilai.",
    },
    "en": {
        "notebook": "Graded {file} (your notebook); {others} is as released.",
        "both": "Graded {file}. You changed {others} too, but it is not graded: where both the "
        ".py file and the notebook are changed, the .py file is graded.",
    },
}


def graded_note(file: str | None, ignored, lang: str) -> str | None:
    """Which file was graded and which were not, where it matters (grader.submissions.answer):
    a notebook graded instead of the .py starter, or a changed notebook ignored beside a changed
    .py; None where the .py was graded and only untouched starters lay beside it."""
    changed = [f for f, why in ignored if why == "both"]
    words = GRADED[lang if lang in GRADED else "en"]
    if file and changed:
        return words["both"].format(file=file, others=", ".join(changed))
    if file and file.endswith(".ipynb") and ignored:
        return words["notebook"].format(file=file, others=", ".join(f for f, _ in ignored))
    return None
