"""Constraints and bonuses: what a check earns depends on which other checks of the same functions
pass (a trivial answer earns nothing for having no side effects; a bonus only on top of a passing
main property)."""

from __future__ import annotations

from grader.checks import KINDS
from grader.checks.messages import both
from grader.outcomes.results import CheckResult
from grader.specs.model import Check


def _covered(check: Check) -> set[str]:
    if check.function:
        return {check.function}
    return set(check.options.get("functions", ["*"]))


def is_constraint(check: Check) -> bool:
    """A constraint by its kind, or marked `constraint: true` in the spec."""
    return KINDS[check.kind].constraint or check.constraint


def apply_constraints(
    checks: list[Check], rows: list[CheckResult], only: set[str] | None = None
) -> None:
    """A constraint check (see Kind.constraint) earns its points only once the functions it
    covers pass a non-constraint check: a trivial answer (zeros of the right shape, say) or
    code that does not run earns nothing for having no side effects. Where none of `checks`
    covers those functions (their value checks are hidden, and these are the visible ones), it
    earns them only once some non-constraint check of the exercise passes. `only`: the ids of
    the rows that may change (the hidden ones, judged after the visible ones are final)."""
    by_id = {r.id: r for r in rows}
    _apply_bonuses(checks, by_id, only)
    achievements = [c for c in checks if not is_constraint(c)]
    anything = [c.id for c in achievements]
    for check in checks:
        row = by_id.get(check.id)
        if (
            not is_constraint(check)
            or row is None
            or row.status != "passed"
            or (only is not None and check.id not in only)
        ):
            continue
        functions = _covered(check)
        related = [
            c.id
            for c in achievements
            if "*" in functions
            or c.function in functions
            or (c.function or "").split(".")[0] in functions
        ]
        if any(by_id[i].status == "passed" for i in (related or anything) if i in by_id):
            continue
        row.status, row.points = "skipped", 0.0
        names = functions
        if "*" in functions:  # the whole file: name the functions its value checks cover
            names = {c.function for c in achievements if c.id in related and c.function}
        row.message = (
            both(
                "Belum dinilai: {f} belum lulus pemeriksaan nilai mana pun.",
                "Not awarded yet: {f} {v} not pass any value check yet.",
                f=", ".join(sorted(names)),
                v="does" if len(names) == 1 else "do",
            )
            if names
            else both(
                "Belum dinilai: belum ada pemeriksaan nilai yang lulus.",
                "Not awarded yet: no value check passes yet.",
            )
        )


def _covers(check: Check, functions: set[str]) -> bool:
    """Whether a check covers any of the functions (a whole-file check covers them all)."""
    mine = _covered(check)
    return (
        "*" in mine
        or "*" in functions
        or any(f in functions or f.split(".")[0] in functions for f in mine)
    )


def _apply_bonuses(checks: list[Check], by_id: dict, only: set[str] | None) -> None:
    """A bonus is earned on top of a passing main property, never instead of it: a passed
    bonus check keeps its points only where every other (not bonus) check among `checks` of
    the functions it covers passed too (gradgradcheck on a backward that returns None while
    the backward's own checks fail earns nothing)."""
    for check in checks:
        row = by_id.get(check.id)
        if (
            not check.bonus
            or row is None
            or row.status != "passed"
            or (only is not None and check.id not in only)
        ):
            continue
        functions = _covered(check)
        failing = sorted(
            c.id
            for c in checks
            if not c.bonus
            and c.id in by_id
            and by_id[c.id].status != "passed"
            and _covers(c, functions)
        )
        if not failing:
            continue
        row.status, row.points = "skipped", 0.0
        row.message = both(
            "Bonus belum dinilai: {f} belum lulus {c}.",
            "Bonus not awarded yet: {f} {v} not pass {c} yet.",
            f=", ".join(sorted(functions)),
            v="does" if len(functions) == 1 else "do",
            c=", ".join(failing),
        )
