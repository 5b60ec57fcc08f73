"""`python -m grader validate`: the self-audit's report, per exercise (a table of every answer
and what caught each mutant, the rules and principles shown broken, the misses) and one line for
the course. The audit itself is grader.authoring.validate's."""

from __future__ import annotations

from pathlib import Path

from rich.markup import escape
from rich.table import Table

from grader.authoring import stating
from grader.authoring.draw import missing
from grader.authoring.validate import (
    TRIVIAL_PREFIX,
    TRIVIAL_SHARE,
    audit,
    miss_reason,
    notebook_miss,
)
from grader.common.errors import GraderError


def validate(args, public, config, chosen, sandbox, console, lang: str = "en") -> int:
    """Audit `chosen` with the grading `config` (`public`: the course's own, for the committed
    examples), print a table and its findings per exercise, then one line for the course;
    0 when nothing is missed."""
    console.print(
        f"[dim]validating with the seed from {config.seed_source}, hidden checks "
        "included, as `batch` grades[/]",
        soft_wrap=True,
    )

    if not args.solutions.is_dir():
        raise GraderError(
            f"solutions folder not found: {args.solutions}; validate needs the "
            "answer key (solutions/<id>.py, variants/ and mutants/), or give "
            "--solutions DIR"
        )
    all_ok = True
    missed: list[str] = []
    for exercise in chosen:
        result = audit(exercise=exercise, solutions=args.solutions, config=config, sandbox=sandbox)
        table = Table(title=f"{exercise.id}", title_justify="left")
        for col in ("role", "file", "score", "verdict", "caught by / status"):
            # a file's name folds onto a second line at 80 columns rather than being cut
            table.add_column(col, overflow="fold")
        for t in result.trials:
            verdict = "[green]ok[/]" if t.ok else f"[red]MISS[/] (must be {t.limit})"
            score = f"{t.result.score:g}/{t.result.max_score:g}"
            if t.role == "mutant":
                info = ", ".join(t.caught_by)
            elif t.role in ("trivial", "starter") and t.result.status != "missing":
                info = "points from: " + (", ".join(t.earned_by) or "none")
            else:
                info = t.result.status
            table.add_row(t.role, escape(Path(t.file).name), score, verdict, escape(info))
        console.print(table)
        for t in result.trials:
            if not t.ok:
                console.print(
                    f"[red]MISS[/] {escape(t.file)}: {escape(miss_reason(t, lang))}",
                    soft_wrap=True,
                )
        for problem in result.mislabeled() + result.misclaimed() + result.answer_leaks():
            console.print(f"[red]MISS[/] {escape(problem)}", soft_wrap=True)
        rules = result.rules()
        crowded = result.crowded()
        trials = {t.file: t for t in result.trials}
        for rule_id, breakers in result.rule_breakers().items():
            if breakers:
                names = ", ".join(
                    f"{Path(f).name} (caught by "
                    f"{', '.join(result.caught_for(trials[f], rule_id))})"
                    for f in breakers
                )
                console.print(
                    f"rule {rule_id} ({escape(rules[rule_id])}): broken alone by {escape(names)}",
                    soft_wrap=True,
                )
            elif rule_id in crowded:
                names = "; ".join(
                    f"{Path(f).name} also fails {', '.join(others)}"
                    for f, others in crowded[rule_id]
                )
                console.print(
                    f"[red]MISS[/] rule {rule_id} ({escape(rules[rule_id])}): no mutant breaks "
                    f"it alone ({escape(names)}, which observe none of the rules it names); add "
                    f'a mutant that breaks only this rule and says "Breaks the rule {rule_id}.", '
                    "or name in the mutant (or in those checks' `rules:`) the rule they observe",
                    soft_wrap=True,
                )
            elif rule_id in result.unshown_principles():
                console.print(
                    f"[yellow]principle {rule_id}: judged on every call, but no mutant here "
                    'shows it yet (one that says "Breaks the rule '
                    f'{rule_id}.")[/]',
                    soft_wrap=True,
                )
            else:
                console.print(
                    f"[red]MISS[/] rule {rule_id} ({escape(rules[rule_id])}): no mutant is "
                    'shown to break it; add one that says "Breaks the rule '
                    f'{rule_id}." (solutions/mutants/{exercise.id}/NAME.py) and that a check '
                    "observing the rule catches, or take the rule out of the instructions",
                    soft_wrap=True,
                )
        reasons = {c.id: c.rationale for c in exercise.checks if c.hidden}
        for check_id, caught in result.hidden_catches().items():
            if caught:
                names = ", ".join(Path(f).name for f in caught)
                console.print(
                    f"hidden check {check_id}: catches what the visible checks miss "
                    f"in {escape(names)}",
                    soft_wrap=True,
                )
            elif reasons.get(check_id):
                console.print(
                    f"[yellow]hidden check {check_id}: catches no mutant the visible "
                    f"checks miss; its rationale: {escape(reasons[check_id])}[/]",
                    soft_wrap=True,
                )
            else:
                console.print(
                    f"[red]MISS[/] hidden check {check_id}: catches no mutant the "
                    "visible checks miss; add one (solutions/mutants/"
                    f"{exercise.id}/NAME.py) or say why in its `rationale:`",
                    soft_wrap=True,
                )
        v_ok, v_all = result.count("variant")
        m_ok, m_all = result.count("mutant")
        t_ok, t_all = result.count("trivial")
        s_ok, _ = result.count("starter")
        console.print(
            f"{exercise.id}: variants accepted {v_ok}/{v_all}, "
            f"mutants rejected {m_ok}/{m_all} "
            f"(mutation score {100 * m_ok / max(m_all, 1):.0f}%), "
            f"trivial answers held to {TRIVIAL_SHARE:.0%} {t_ok}/{t_all}, "
            f"starter at 0: {'yes' if s_ok else 'NO'}",
            soft_wrap=True,
        )
        undrawn = missing(exercise, public)
        if undrawn:
            console.print(
                f"[yellow]exercises/{exercise.id}/examples.drawn holds no examples of "
                f"{escape(', '.join(undrawn))} for this spec and config: run `python -m grader draw "
                f"{exercise.id}` and commit it (a fresh clone's first check draws them "
                "otherwise)[/]",
                soft_wrap=True,
            )
        fewer = result.below_guide()
        if fewer:
            console.print(
                f"[yellow]warning: {exercise.id} has {escape(', '.join(fewer))}: "
                "docs/authoring.md, step 4 (hidden checks: the spec's keys)[/]",
                soft_wrap=True,
            )
        unstated = result.unstated()
        if unstated:
            console.print(
                f"[red]MISS[/] exercises/{exercise.id}/{escape(exercise.file)} does not state "
                f"the rule(s) {escape(', '.join(unstated))} in its docstring (what can cost a "
                f"point is what the student is told): run `{stating.COMMAND} {exercise.id}` "
                "and commit it",
                soft_wrap=True,
            )
        stale_notebook = notebook_miss(exercise)
        if stale_notebook:
            console.print(f"[red]MISS[/] {escape(stale_notebook)}", soft_wrap=True)
            all_ok = False
        if not result.complete:
            console.print(
                f"[red]{exercise.id}: needs at least one variant, one mutant and one "
                f"trivial answer (solutions/mutants/{exercise.id}/"
                f"{TRIVIAL_PREFIX}*.py)[/]",
                soft_wrap=True,
            )
        all_ok &= result.ok
        if not result.ok or stale_notebook:
            missed.append(exercise.id)
    ok = len(chosen) - len(missed)
    if missed:
        console.print(
            f"[red]validate: {ok} of {len(chosen)} exercise(s) pass the audit; "
            f"misses in {escape(', '.join(missed))} (their MISS lines above say how to fix "
            "each)[/]",
            soft_wrap=True,
        )
    else:
        console.print(
            f"[green]validate: all {len(chosen)} exercise(s) pass the audit: every key and "
            "variant keeps full marks, every mutant loses points[/]",
            soft_wrap=True,
        )
    return 0 if all_ok else 1
