"""What a regrade changed, one line per submission (from grader.outcomes.gradebook.Change)."""

from __future__ import annotations

from grader.outcomes.gradebook import Change


def line(c: Change) -> str:
    flips = (
        ", ".join(
            f"{f.exercise}.{f.check} {f.before or 'absent'} -> {f.after or 'absent'}"
            for f in c.flips
        )
        or "no check flipped"
    )
    why = "; ".join(c.causes) or "same files, specs, seed and versions (timing-dependent?)"
    return (
        f"{c.submission}: {c.score_before:g}/{c.max_before:g} -> {c.score_after:g}/"
        f"{c.max_after:g} (since run {c.previous_run}): {flips}; because: {why}"
    )
