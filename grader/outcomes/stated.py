"""The rules a failed check observes, named in its row as the spec states them (the exercise's
`rules:`, the same sentences the starter's docstring lists): a student who loses a point for a
rule of method ("one forward", "do not compute what is not needed") reads which rule it was, in
the words they were given."""

from __future__ import annotations

from grader.outcomes.results import CheckResult
from grader.specs.model import Exercise, Text


def named(exercise: Exercise, rows: list[CheckResult]) -> list[CheckResult]:
    """`rows`, each failed one whose check observes stated rules with those rules added to its
    message (in place; returned for a caller's convenience)."""
    observes = {c.id: c.rules for c in exercise.checks}
    for row in rows:
        rules = [exercise.rules[r] for r in observes.get(row.id, ()) if r in exercise.rules]
        if row.status != "failed" or not rules:
            continue
        row.message = _with(row.message, rules)
    return rows


def _with(message: Text | None, rules: list[Text]) -> Text:
    said = {lang: " ".join(f"«{r.get(lang)}»" for r in rules) for lang in ("id", "en")}
    head = {
        "id": "Aturan yang diamati pemeriksaan ini:" if len(rules) > 1 else "Aturannya:",
        "en": "The rules this check observes:" if len(rules) > 1 else "The rule:",
    }
    parts = {lang: f"{head[lang]} {said[lang]}" for lang in ("id", "en")}
    if message is None:
        return Text(id=parts["id"], en=parts["en"])
    return Text(id=f"{message.id}\n\n{parts['id']}", en=f"{message.en}\n\n{parts['en']}")
