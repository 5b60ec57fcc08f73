"""A term as a class lives it, built from the real release of the real course: the students'
template repository (`python -m grader release`, committed), and GitHub Classroom clones of it
with dated commits, each student answering another way. tests/test_term.py grades the class and
benchmarks/term_class.py times a larger one; both build it here.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
ASSIGNMENT = "latihan-autograd"
DEADLINE = "2026-12-10T23:59:00+07:00"
HANDED_OUT = "2026-12-01T08:00:00+07:00"
ON_TIME = "2026-12-05T20:15:00+07:00"
LATE = "2026-12-12T09:30:00+07:00"


def git(repo: Path, *args: str, when: str | None = None) -> str:
    """git in `repo` as a student's machine runs it (their name, the commit's own date)."""
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    env.update(
        GIT_AUTHOR_NAME="Siswa",
        GIT_AUTHOR_EMAIL="siswa@example.org",
        GIT_COMMITTER_NAME="Siswa",
        GIT_COMMITTER_EMAIL="siswa@example.org",
    )
    if when:
        env.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    done = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def release(out: Path) -> Path:
    """`python -m grader release OUT` of the teacher's course, as the teacher runs it, then
    committed as the template repository GitHub Classroom copies."""
    subprocess.run(
        [sys.executable, "-m", "grader", "release", str(out)],
        cwd=ROOT,
        env=_clean_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    git(out, "init", "-q")
    git(out, "add", "-A")
    git(out, "commit", "-q", "-m", "Initial commit", when=HANDED_OUT)
    return out


def _clean_env() -> dict:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


def course(template: Path) -> list[str]:
    return (template / "exercises" / "ORDER").read_text().split()


def key(exercise: str) -> str:
    return (SOLUTIONS / f"{exercise}.py").read_text(encoding="utf-8")


def in_notebook(template: Path, exercise: str, code: str) -> str:
    """The release's notebook starter with its exercise cells holding `code` (a student who
    filled the notebook's cells in): the set-up cell, the texts and the grading cell kept."""
    from grader.submissions import notebook

    nb = json.loads((template / "notebooks" / f"{exercise}.ipynb").read_text(encoding="utf-8"))
    filled = notebook.starter(code, exercise)["cells"]
    body = [c for c in filled[1:-2] if c["cell_type"] == "code"]
    first_code = next(i for i, c in enumerate(nb["cells"]) if i and c["cell_type"] == "code")
    grading = len(nb["cells"]) - 2
    nb["cells"] = nb["cells"][:first_code] + body + nb["cells"][grading:]
    for n, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
        cell["execution_count"] = n + 1  # as saved after running the cells in order
    return notebook.dumps(nb)


@dataclass
class Student:
    """A clone of the template and what its owner does to it, commit by commit."""

    login: str
    commits: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    """(committer date, {path in the repository: new text}) in order."""

    def folder(self, klass: Path) -> Path:
        return klass / f"{ASSIGNMENT}-submissions" / f"{ASSIGNMENT}-{self.login}"

    def clone(self, template: Path, klass: Path) -> Path:
        repo = self.folder(klass)
        repo.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["git", "clone", "-q", str(template), str(repo)],
            check=True,
            capture_output=True,
            env=dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull),
        )
        for when, files in self.commits:
            for rel, text in files.items():
                (repo / rel).write_text(text, encoding="utf-8")
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "-m", f"Latihan ({when[:10]})", when=when)
        return repo


def py(exercise: str) -> str:
    return f"exercises/{exercise}/{exercise}.py"


def nb(exercise: str) -> str:
    return f"notebooks/{exercise}.ipynb"


OWN_MANUAL_GRADIENT = '''\
import torch


def f(x):
    return torch.exp(-x**2) * torch.sin(3 * x) + torch.log(1 + x**2) / (1 + torch.exp(-x))


def bagian_gauss(x):
    """Turunan exp(-x^2) * sin(3x), aturan perkalian."""
    gauss = torch.exp(-(x * x))
    gelombang = torch.sin(3.0 * x)
    turunan_gelombang = 3.0 * torch.cos(3.0 * x)
    turunan_gauss = -2.0 * x * gauss
    return turunan_gauss * gelombang + gauss * turunan_gelombang


def bagian_log(x):
    """Turunan log(1 + x^2) * sigmoid(x), aturan perkalian."""
    logaritma = torch.log(1.0 + x * x)
    sig = torch.sigmoid(x)
    turunan_logaritma = (2.0 * x) / (1.0 + x * x)
    turunan_sig = sig * (1.0 - sig)
    return turunan_logaritma * sig + logaritma * turunan_sig


def df(x):
    hasil = bagian_gauss(x)
    hasil = hasil + bagian_log(x)
    return hasil
'''
"""A student's own correct manual_gradient df, written their way (helpers of their own), with
the key's other functions: code the course's answers do not hold, so a copy of it stands out."""


def own_manual_gradient() -> str:
    tree = ast.parse(key("manual_gradient"))
    rest = [
        ast.unparse(n)
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and n.name not in ("f", "df")
    ]
    return OWN_MANUAL_GRADIENT + "\n\n" + "\n\n\n".join(rest) + "\n"


class _Rename(ast.NodeTransformer):
    """Every local name and every helper of the module renamed (arguments keep theirs: a caller
    may pass them by name)."""

    def __init__(self, names: dict[str, str]):
        self.names = names

    def visit_Name(self, node):
        node.id = self.names.get(node.id, node.id)
        return node

    def visit_FunctionDef(self, node):
        node.name = self.names.get(node.name, node.name)
        self.generic_visit(node)
        return node


def disguised(source: str, keep: set[str]) -> str:
    """A copy as one hides it: local names and helpers renamed, functions in another order,
    docstrings and comments gone; the functions the grader calls (`keep`) keep their names."""
    tree = ast.parse(source)
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name not in keep:
            names[node.name] = f"hitung_{len(names)}"
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.setdefault(node.id, f"nilai_{len(names)}")
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(getattr(body[0], "value", None), ast.Constant):
                node.body = body[1:] or [ast.Pass()]
    tree = _Rename(names).visit(tree)
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    others = [n for n in tree.body if not isinstance(n, ast.FunctionDef)]
    tree.body = others + functions[::-1]
    return ast.unparse(tree) + "\n"


def mistaken(exercise: str, mutant: str, student: str) -> str:
    """A known-wrong answer (solutions/mutants/<exercise>/<mutant>.py) as a student writes it:
    the mutant's docstring gone, a comment of their own."""
    tree = ast.parse((SOLUTIONS / "mutants" / exercise / f"{mutant}.py").read_text("utf-8"))
    body = tree.body[1:] if isinstance(tree.body[0], ast.Expr) else tree.body
    return f"# {exercise}, {student}\n" + ast.unparse(ast.Module(body, [])) + "\n"


def syntax_error(source: str) -> str:
    return source.replace("def ", "def (", 1)


def students(template: Path) -> dict[str, Student]:
    """The class of tests/test_term.py, each answering another way."""
    ids = course(template)
    keys_py = {py(e): key(e) for e in ids}
    own = dict(keys_py, **{py("manual_gradient"): own_manual_gradient()})
    copied = dict(
        keys_py,
        **{
            py("manual_gradient"): disguised(
                own_manual_gradient(), {"f", "df", "grad_g", "mlp_grads", "autograd_df"}
            )
        },
    )
    broken = dict(keys_py, **{py("grad_clipping"): syntax_error(key("grad_clipping"))})
    early = ["graph_tracking", "manual_gradient"]
    return {
        s.login: s
        for s in [
            Student("ana", [(ON_TIME, keys_py)]),
            Student("budi", [(ON_TIME, {nb(e): in_notebook(template, e, key(e)) for e in ids})]),
            Student(
                "citra",
                [
                    (
                        ON_TIME,
                        {py(e): key(e) for e in ("graph_tracking", "no_grad_inference")}
                        | {nb(e): in_notebook(template, e, key(e)) for e in ("retain_graph",)},
                    )
                ],
            ),
            Student("dewi", [(ON_TIME, {py(e): key(e) for e in early}), (LATE, keys_py)]),
            Student("eko", [(ON_TIME, copied)]),
            Student("fajar", []),
            Student("gita", [(ON_TIME, broken)]),
            Student("hana", [(ON_TIME, own)]),
            # The class's real mistakes: the gradient not reset after a step (both), nor
            # before accumulating (irma).
            Student(
                "irma",
                [
                    (
                        ON_TIME,
                        keys_py
                        | {
                            py("manual_sgd"): mistaken("manual_sgd", "no_zero_grad", "irma"),
                            py("grad_accumulation"): mistaken(
                                "grad_accumulation", "no_zero_first", "irma"
                            ),
                        },
                    )
                ],
            ),
            Student(
                "joko",
                [
                    (
                        ON_TIME,
                        keys_py
                        | {py("manual_sgd"): mistaken("manual_sgd", "no_zero_grad", "joko")},
                    )
                ],
            ),
        ]
    }


def build_class(template: Path, klass: Path, chosen: dict[str, Student]) -> dict[str, Path]:
    """Each student's clone under klass/<assignment>-submissions/, as `gh classroom clone
    student-repos` writes them."""
    if klass.exists():
        shutil.rmtree(klass)
    return {login: s.clone(template, klass) for login, s in chosen.items()}
