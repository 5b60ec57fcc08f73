"""The rules an exercise states, where the student reads them: its starter's module docstring
lists every rule of the spec's `rules:` in both languages (and so does the notebook made from
the starter). `validate` names a rule the starter does not state; this module's command writes
the list into the starter:

    python -m grader.authoring.stating ID [ID ...]
"""

from __future__ import annotations

import argparse
import ast
import sys
import textwrap
from pathlib import Path

from grader.checks import KINDS
from grader.specs.model import Exercise, TensorArg, Text

HEAD = "Aturan yang dinilai / Rules that are graded:"
"""The line that opens the list in a starter's docstring."""
COMMAND = "python -m grader.authoring.stating"
WIDTH = 96


def _flat(text: str) -> str:
    return " ".join(text.split())


def starter(exercise: Exercise) -> Path:
    return exercise.path.parent / exercise.file


def unstated(exercise: Exercise) -> list[str]:
    """The ids of the rules whose text (Bahasa Indonesia or English) the starter's module
    docstring does not hold, whitespace aside; [] where the exercise has no .py starter."""
    path = starter(exercise)
    if not exercise.rules or not path.is_file():
        return []
    try:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    except (SyntaxError, ValueError):
        doc = ""
    doc = _flat(doc)
    return [
        rule_id
        for rule_id, text in exercise.rules.items()
        if _flat(text.id) not in doc or _flat(text.en) not in doc
    ]


PRINCIPLES = {
    "caller_objects": Text(
        id="Setiap pemanggilan membiarkan objek pemanggil (tensor, .grad dan flag-nya, modul) "
        "dan mode global (grad mode, anomaly detection, dtype bawaan) seperti semula, kecuali "
        "yang memang diminta untuk diubah.",
        en="Every call leaves the caller's objects (tensors, their .grad and flags, modules) "
        "and the global modes (grad mode, anomaly detection, the default dtype) as it found "
        "them, except what it is asked to change.",
    ),
    "layouts": Text(
        id="Argumen tensor bisa datang contiguous, transposed atau strided.",
        en="Tensor arguments may arrive contiguous, transposed or strided.",
    ),
}
"""The grader's principles (validate.PRINCIPLES) as the list states them."""


def principles(exercise: Exercise) -> list[str]:
    """The grader's default principles that apply to an exercise: global modes and the
    caller's objects always; layouts where a check hands the function a tensor argument drawn
    in every layout (a scenario's setup chooses its objects' layouts itself)."""
    out = ["global_modes", "caller_objects"]
    if any(
        c.kind != "scenario" and any(isinstance(a, TensorArg) and not a.contiguous for a in c.args)
        for c in exercise.checks
    ):
        out.append("layouts")
    if any(
        KINDS[c.kind].starting_states
        and any(isinstance(a, TensorArg) and not a.untracked for a in c.args)
        for c in exercise.checks
        if c.kind in KINDS
    ):
        out.append("starting_states")
    return out


def block(exercise: Exercise) -> str:
    """The list as the starter's docstring holds it (no trailing newline): the spec's rules,
    then the principles that apply to the exercise."""
    lines = [HEAD]
    texts = list(exercise.rules.values())
    texts += [PRINCIPLES[p] for p in principles(exercise) if p in PRINCIPLES]
    for text in texts:
        for mark, said in (("- ID: ", text.id), ("  EN: ", text.en)):
            lines += textwrap.wrap(
                _flat(said),
                WIDTH,
                initial_indent=mark,
                subsequent_indent="      ",
                break_on_hyphens=False,
                break_long_words=False,
            )
    return "\n".join(lines)


def write(exercise: Exercise) -> bool:
    """Write (or rewrite) the list at the end of the starter's module docstring; whether the
    file changed."""
    path = starter(exercise)
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    first = tree.body[0] if tree.body else None
    if not (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        raise ValueError(f"{path}: the starter has no module docstring to state its rules in")
    lines = source.splitlines(keepends=True)
    end = (first.end_lineno or 1) - 1  # the line holding the closing quotes
    if lines[end].strip() not in ('"""', "'''"):
        raise ValueError(
            f"{path}: put the module docstring's closing quotes on a line of their own"
        )
    body = lines[:end]
    start = next((i for i, line in enumerate(body) if line.strip() == HEAD), None)
    if start is not None:  # the old list runs to the docstring's end
        if start > 0 and not body[start - 1].strip():
            start -= 1
        body = body[:start]
    new = "".join(body).rstrip("\n") + "\n"
    if exercise.rules:
        new += "\n" + block(exercise) + "\n"
    new += "".join(lines[end:])
    if new == source:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def main(argv=None) -> int:
    from grader.loader import specfile

    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("ids", nargs="+", metavar="ID")
    parser.add_argument("--exercises", type=Path, default=Path("exercises"))
    args = parser.parse_args(argv)
    for ex_id in args.ids:
        exercise = specfile.load(args.exercises / ex_id / "exercise.yaml")
        changed = write(exercise)
        print(f"{starter(exercise)}: {'rules written' if changed else 'already states its rules'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
