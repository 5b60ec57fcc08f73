"""The command line's grammar: every command, its options and their help."""

from __future__ import annotations

import argparse
from pathlib import Path

from grader import __version__
from grader.common.errors import GraderError
from grader.loader import config as config_mod

ROOT = Path(__file__).resolve().parents[2]
"""The grader's own checkout: its solutions/ are the default answer key."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m grader", description="Grade PyTorch autograd exercises."
    )
    p.add_argument("--version", action="version", version=f"grader {__version__}")
    p.add_argument("--config", type=Path, help="config file (default: config.yaml)")
    p.add_argument(
        "--exercises-dir",
        type=Path,
        help="where the exercise specs are (default: exercises/ of the working copy you are in)",
    )
    p.add_argument(
        "--submission",
        type=Path,
        help="the course view of another folder (default: exercises/, your working copy)",
    )
    sub = p.add_subparsers(dest="command")
    check = sub.add_parser("check", help="grade exercises of one submission")
    check.add_argument("ids", nargs="*", metavar="ID", help="exercise ids (default: all)")
    check.add_argument(
        "--submission",
        type=Path,
        help="submission directory (default: exercises/, your working copy)",
    )
    check.add_argument("--json", type=Path, metavar="FILE", help="also write grader-result/1 JSON")
    check.add_argument(
        "--feedback",
        type=Path,
        metavar="FILE",
        help='also write the feedback as Markdown (e.g. "$GITHUB_STEP_SUMMARY")',
    )
    check.add_argument(
        "--only",
        nargs="+",
        metavar="CHECK",
        help="run only these checks: ids, or titles as in the report (or part of one)",
    )
    check.add_argument(
        "--plot",
        nargs="?",
        type=Path,
        const=Path("grader-plots"),
        metavar="DIR",
        help="draw failed elementwise functions as PNGs in DIR "
        "(default: grader-plots/; needs matplotlib)",
    )
    for q in (check, p):
        q.add_argument("--lang", choices=config_mod.LANGUAGES, help="language of the report")
        q.add_argument(
            "--fresh",
            action="store_true",
            default=argparse.SUPPRESS,
            help="grade every exercise again, even those whose file has not "
            "changed since the last run",
        )
    lst = sub.add_parser("list", help="list the exercises")
    lst.add_argument("--lang", choices=config_mod.LANGUAGES)
    hint = sub.add_parser("hint", help="show the next hint of an exercise (one at a time)")
    hint.add_argument("id")
    hint.add_argument(
        "--all", action="store_true", help="the instructions and every hint shown so far"
    )
    hint.add_argument("--reset", action="store_true", help="start the hints again")
    hint.add_argument("--lang", choices=config_mod.LANGUAGES)
    wat = sub.add_parser("watch", help="re-grade an exercise each time you save its file")
    wat.add_argument("ids", nargs="*", metavar="ID", help="exercise ids (default: all)")
    wat.add_argument("--submission", type=Path, help="directory to watch (default: exercises/)")
    wat.add_argument("--lang", choices=config_mod.LANGUAGES)
    val = sub.add_parser("validate", help="check that answers pass and mutants fail")
    val.add_argument("ids", nargs="*", metavar="ID")
    val.add_argument("--solutions", type=Path, default=ROOT / "solutions")
    val.add_argument("--lang", choices=config_mod.LANGUAGES)
    drw = sub.add_parser(
        "draw",
        help="write each exercise's examples into the course (exercises/ID/examples.drawn), "
        "so that a fresh clone's first check need not draw them",
    )
    drw.add_argument("ids", nargs="*", metavar="ID")
    drw.add_argument("--solutions", type=Path, default=ROOT / "solutions")
    bat = sub.add_parser("batch", help="grade every submission of a class (teachers)")
    bat.add_argument("dir", type=Path, metavar="DIR", help="one subdirectory per submission")
    bat.add_argument("--out", type=Path, required=True, help="folder for the outputs")
    bat.add_argument(
        "--jobs", type=int, metavar="N", help="submissions graded at once (default: the CPU cores)"
    )
    bat.add_argument("--shard", metavar="K/N", help="grade only shard K of N (a CI matrix job)")
    bat.add_argument("--exercises", nargs="+", metavar="ID", help="exercise ids (default: all)")
    bat.add_argument(
        "--gradebook",
        type=Path,
        metavar="FILE",
        help="SQLite gradebook to record the run in (default: config gradebook)",
    )
    bat.add_argument(
        "--seed",
        type=int,
        help="hypothesis seed (default: $GRADER_GRADING_SEED, "
        "else the config's grading_seed, else its public seed)",
    )
    bat.add_argument(
        "--deadline",
        metavar="WHEN",
        help="grade each git repository as of this time, e.g. 2026-12-10T23:59+07:00 "
        "(default: the config's deadline; late_policy says what later commits do)",
    )
    bat.add_argument("--lang", choices=config_mod.LANGUAGES)
    bat.add_argument(
        "--roster",
        type=Path,
        metavar="FILE",
        help="the class's roster CSV (GitHub Classroom's, or login,name,email,lms_id): "
        "names and LMS identifiers in every output",
    )
    new = sub.add_parser("new", help="scaffold a new exercise (teachers; see docs/authoring.md)")
    new.add_argument("id", help="the new exercise's id, e.g. retain_graph_twice")
    new.add_argument(
        "--kind",
        choices=("value", "scenario"),
        default="value",
        help="the template's first check kind (default: value)",
    )
    mer = sub.add_parser("merge", help="combine the output folders of batch shards")
    mer.add_argument("folders", nargs="+", type=Path, metavar="OUT_K")
    mer.add_argument("--out", type=Path, required=True, help="folder for the merged outputs")
    mer.add_argument(
        "--gradebook",
        type=Path,
        metavar="FILE",
        help="SQLite gradebook to record the run in (default: config gradebook)",
    )
    mer.add_argument(
        "--roster",
        type=Path,
        metavar="FILE",
        help="the class's roster CSV (GitHub Classroom's, or login,name,email,lms_id): "
        "names and LMS identifiers in every output",
    )
    rel = sub.add_parser("release", help="write the students' repository (teachers)")
    rel.add_argument(
        "out", type=Path, metavar="OUT", help="a new or empty folder outside the project"
    )
    rel.add_argument("--exercises", nargs="+", metavar="ID", help="exercise ids (default: all)")
    rel.add_argument(
        "--force", action="store_true", help="replace what OUT holds (its .git is kept)"
    )
    gsc = sub.add_parser("gradescope", help="write the Gradescope autograder zip (teachers)")
    gsc.add_argument("zip", type=Path, metavar="ZIP", help="e.g. autograder.zip")
    gsc.add_argument("--exercises", nargs="+", metavar="ID", help="exercise ids (default: all)")
    return p


def select(exercises, ids):
    """The exercises named (all where none is), in the order named; an unknown id is a usage
    error naming the known ones."""
    if not ids:
        return exercises
    known = {e.id: e for e in exercises}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise GraderError(
            f"unknown exercise(s): {', '.join(unknown)}; known: {', '.join(known) or 'none'}"
        )
    return [known[i] for i in ids]
