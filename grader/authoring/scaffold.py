"""`grader new ID`: the files of a new exercise, ready to edit, with a spec that loads and a
self-audit (`grader validate ID`) that passes before the teacher changes anything.

Two templates: `value` (a function compared with a torch expression) and `scenario` (a function
run on objects a setup builds, observed like a reference run). docs/authoring.md walks through
turning either into a real exercise.
"""

from __future__ import annotations

import re
from pathlib import Path

from grader.common.errors import GraderError
from grader.loader import config
from grader.submissions import notebook

KINDS = ("value", "scenario")
_ID = re.compile(r"^[a-z][a-z0-9_]*$")

_HEADER = """\
# TODO: the course section this exercise practises (its chapter and heading), in one line.
format: 1
id: {id}
title:
  id: "TODO judul dalam Bahasa Indonesia"
  en: "TODO title in English"
topics: []   # TODO: one or more of the course's topics (config.yaml `topics:`): {topics}
instructions:
  id: |
    TODO: apa yang ditulis siswa, dengan rujukan ke bagian kursus yang dilatih.
  en: |
    TODO: what the student writes, pointing at the course section it practises.
hints:
  - id: "TODO petunjuk yang menuntun tanpa memberi jawabannya"
    en: "TODO a hint that leads without handing over the answer"
dtype: float64
dims: {{N: [1, 5]}}
"""

_VALUE_SPEC = (
    _HEADER
    + """\
references:
  # TODO: the right answer, as a torch expression of the check's args (evaluated by the grader).
  f: {{args: [x], expr: "torch.tanh(x) * x"}}
checks:
  - id: value
    kind: value
    title: {{id: "TODO f(x) benar", en: "TODO f(x) is right"}}
    function: f
    args:
      x: {{shape: [N], low: -3, high: 3}}
    expect: {{value_of: f}}
    points: 2
    hint: {{id: "TODO petunjuk untuk pemeriksaan ini", en: "TODO a hint for this check"}}
  - id: keeps_shape
    kind: shape_dtype
    title: {{id: "TODO f mempertahankan shape dan dtype", en: "TODO f keeps shape and dtype"}}
    function: f
    args:
      x: {{shape: any, low: -3, high: 3}}
    expect: {{value_of: f}}
    points: 1
  - id: wide_range
    kind: value
    hidden: true    # batch only: what the visible checks leave open (here: a wider range)
    title: {{id: "TODO f benar di rentang lebar", en: "TODO f is right on a wide range"}}
    function: f
    args:
      x: {{shape: [N], low: -30, high: 30}}
    expect: {{value_of: f}}
    points: 1
"""
)

_SCENARIO_SPEC = (
    _HEADER
    + """\
checks:
  - id: update
    kind: scenario
    title: {{id: "TODO f memperbarui w di tempat", en: "TODO f updates w in place"}}
    function: f
    examples: 15
    args:
      w: {{shape: [N], low: -3, high: 3}}
      g: {{like: w, low: -1, high: 1}}
      lr: {{float: [0.01, 1.0]}}
    setup: |
      # TODO: build the objects the function gets, from the drawn args (runs in both processes).
      def setup(w, g, lr):
          p = w.clone().requires_grad_(True)
          p.grad = g.clone()
          return {{"w": p, "lr": lr}}
    call: [w, lr]
    reference: |
      # TODO: the right answer, under the function's name (runs in the grader only).
      def f(w, lr):
          with torch.no_grad():
              w -= lr * w.grad
    observe:
      w: [value, grad, requires_grad, is_leaf]
    points: 2
    hint: {{id: "TODO petunjuk untuk pemeriksaan ini", en: "TODO a hint for this check"}}
  - id: large_grads
    kind: scenario
    hidden: true    # batch only: what the visible check leaves open (here: larger gradients)
    title: {{id: "TODO f memakai gradien besar apa adanya", en: "TODO f uses large gradients as they are"}}
    function: f
    examples: 15
    args:
      w: {{shape: [N], low: -3, high: 3}}
      g: {{like: w, low: -50, high: 50}}
      lr: {{float: [0.01, 1.0]}}
    setup: |
      def setup(w, g, lr):
          p = w.clone().requires_grad_(True)
          p.grad = g.clone()
          return {{"w": p, "lr": lr}}
    call: [w, lr]
    reference: |
      def f(w, lr):
          with torch.no_grad():
              w -= lr * w.grad
    observe:
      w: [value, grad, requires_grad, is_leaf]
    points: 1
"""
)

_STARTER = '''\
"""TODO judul / TODO title.

ID: TODO: instruksi singkat dan bagian kursus yang dilatih.
    Jalankan `python -m grader check {id}` untuk menilai jawabanmu.
EN: TODO: short instructions and the course section practised.
    Run `python -m grader check {id}` to grade your answer.
"""

import torch


def f({args}):
    """ID: TODO apa yang dikembalikan / dilakukan.
    EN: TODO what it returns / does.
    """
    raise NotImplementedError("f belum diimplementasikan / f is not implemented yet")
'''

_ANSWERS = {
    "value": {
        "key": "def f(x):\n    return torch.tanh(x) * x\n",
        "variants/product_order": "def f(x):\n    return x * torch.tanh(x)\n",
        "variants/sinh_over_cosh": "def f(x):\n    return torch.sinh(x) / torch.cosh(x) * x\n",
        "mutants/trivial_zeros": "def f(x):\n    return torch.zeros_like(x)\n",
        "mutants/trivial_identity": "def f(x):\n    return x.clone()\n",
        "mutants/TODO_real_mistake": "def f(x):\n    return torch.tanh(x)\n",
        "mutants/TODO_clamped_input": "def f(x):\n    return torch.tanh(x.clamp(-3, 3)) * x\n",
        "mutants/TODO_other_function": "def f(x):\n    return torch.atan(x) * x\n",
        "mutants/TODO_grad_mode_off": "def f(x):\n"
        "    torch.set_grad_enabled(False)  # left off for the caller\n"
        "    return torch.tanh(x) * x\n",
    },
    "scenario": {
        "key": "def f(w, lr):\n    with torch.no_grad():\n        w -= lr * w.grad\n",
        "variants/through_data": "def f(w, lr):\n    w.data.sub_(lr * w.grad)\n",
        "variants/add_alpha": "def f(w, lr):\n"
        "    with torch.no_grad():\n        w.add_(w.grad, alpha=-lr)\n",
        "mutants/trivial_noop": "def f(w, lr):\n    pass\n",
        "mutants/trivial_zeros": "def f(w, lr):\n    with torch.no_grad():\n        w.zero_()\n",
        "mutants/TODO_real_mistake": "def f(w, lr):\n"
        "    w = w.detach() - lr * w.grad  # rebinds a local name\n",
        "mutants/TODO_clipped_grad": "def f(w, lr):\n"
        "    with torch.no_grad():\n        w -= lr * w.grad.clamp(-1, 1)\n",
        "mutants/TODO_wrong_sign": "def f(w, lr):\n"
        "    with torch.no_grad():\n        w += lr * w.grad\n",
        "mutants/TODO_grad_mode_off": "def f(w, lr):\n"
        "    torch.set_grad_enabled(False)  # left off for the caller\n"
        "    w -= lr * w.grad\n",
    },
}
"""Each exercise gets what docs/authoring.md asks (GUIDE): a key, 2 variants, 6 mutants (2
trivial, one caught only by the hidden check, one that breaks a principle), 1 hidden check."""

_NOTES = {
    "TODO_clamped_input": "Only the hidden check wide_range catches it.",
    "TODO_clipped_grad": "Only the hidden check large_grads catches it.",
    "TODO_grad_mode_off": "Breaks the rule global_modes.",
}
"""The sentences validate reads in a mutant's docstring (grader.authoring.validate)."""

_DOCS = {
    "key": "Answer key for {id}.",
    "variants": "Variant: TODO which correct alternative this is.",
    "mutants": "Mutant: TODO which mistake this is (trivial_*: a zero, identity or "
    "constant answer).",
}


def create(*, root: Path, exercise_id: str, kind: str = "value") -> list[Path]:
    """Write the exercise's files under root (the project folder); returns them in order."""
    if not _ID.match(exercise_id):
        raise GraderError(
            f"exercise id {exercise_id!r}: use lowercase letters, digits and _, "
            "starting with a letter (e.g. retain_graph_twice)"
        )
    if kind not in KINDS:
        raise GraderError(f"--kind {kind!r}: expected one of {', '.join(KINDS)}")
    folder = root / "exercises" / exercise_id
    solutions = root / "solutions"
    if folder.exists() or (solutions / f"{exercise_id}.py").exists():
        raise GraderError(
            f"{folder.relative_to(root)} or solutions/{exercise_id}.py already "
            "exists: choose another id, or edit the existing exercise"
        )
    spec = (_VALUE_SPEC if kind == "value" else _SCENARIO_SPEC).format(
        id=exercise_id,
        topics=", ".join(config.course_topics(root) or ("any id: config.yaml names none",)),
    )
    starter = _STARTER.format(id=exercise_id, args="x" if kind == "value" else "w, lr")
    files = {
        folder / "exercise.yaml": spec,
        folder / f"{exercise_id}.py": starter,
        # The notebook starter (Jupyter, Colab), from the same text; after editing the .py,
        # `python -m grader.submissions.notebook ID` writes it again (validate says when).
        root / notebook.FOLDER / f"{exercise_id}{notebook.SUFFIX}": notebook.starter_text(
            starter, exercise_id
        ),
    }
    for name, body in _ANSWERS[kind].items():
        role, _, stem = name.partition("/")
        if role == "key":
            path, doc = solutions / f"{exercise_id}.py", _DOCS["key"].format(id=exercise_id)
        else:
            path, doc = solutions / role / exercise_id / f"{stem}.py", _DOCS[role]
            if stem in _NOTES:
                doc += "\n\n" + _NOTES[stem] + "\n"
        files[path] = f'"""{doc}"""\n\nimport torch\n\n\n{body}'
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    order = root / "exercises" / "ORDER"
    text = order.read_text(encoding="utf-8") if order.exists() else ""
    if exercise_id not in text.split():
        order.write_text(
            text + ("" if text.endswith("\n") or not text else "\n") + exercise_id + "\n",
            encoding="utf-8",
        )
    return list(files)
