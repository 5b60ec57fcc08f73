"""`grader merge`: combine the outputs of shard jobs into the files one run would write.

The shards must be of the same class run: the same exercises, language, seed, spec versions
and grader version, no submission twice, and (when they are shards) every K of the same N.
"""

from __future__ import annotations

import json
from pathlib import Path

from grader.batch import files as batchfile
from grader.batch.files import Manifest
from grader.common.errors import GraderError
from grader.outcomes.results import SubmissionResult

# Environment fields that must agree for results to be comparable in one gradebook.
SAME = ("grader", "seed", "spec_hashes")


def combine(folders: list[Path]) -> tuple[list[SubmissionResult], Manifest]:
    """Read every folder and check that they belong together; results sorted by id."""
    if not folders:
        raise GraderError("merge: give at least one batch output folder")
    parts = [(Path(f), *batchfile.read(Path(f))) for f in folders]
    first_folder, _, first = parts[0]
    results: dict[str, SubmissionResult] = {}
    files: dict = {}
    reference_env, env_folder = None, None
    for folder, rs, manifest in parts:
        for key in ("language", "exercises"):
            if getattr(manifest, key) != getattr(first, key):
                raise GraderError(
                    f"merge: {folder} has {key} {getattr(manifest, key)!r} but "
                    f"{first_folder} has {getattr(first, key)!r}; grade every "
                    "shard with the same options"
                )
        for r in rs:
            if r.submission in results:
                raise GraderError(
                    f"merge: submission {r.submission!r} appears twice "
                    f"(again in {folder}); give each shard's folder once"
                )
            env = {k: r.environment.get(k) for k in SAME}
            if reference_env is None:
                reference_env, env_folder = env, folder
            elif env != reference_env:
                diff = [k for k in SAME if env[k] != reference_env[k]]
                raise GraderError(
                    f"merge: {folder} ({r.submission}) was graded with a "
                    f"different {', '.join(diff)} than {env_folder}; regrade the "
                    "shards with the same grader, seed and exercises"
                )
            results[r.submission] = r
        files.update(manifest.files)
    _check_shards(parts)
    starters = {}
    for _, _, m in parts:  # shards of one run agree (same specs); older outputs have none
        starters.update(m.starters)
    manifest = Manifest(
        language=first.language, exercises=first.exercises, files=files, starters=starters
    )
    return [results[k] for k in sorted(results)], manifest


def _check_shards(parts) -> None:
    shards = [(folder, m.shard) for folder, _, m in parts if m.shard is not None]
    if not shards:
        return
    if len(shards) != len(parts):
        raise GraderError(
            "merge: some folders are shards and some are whole runs; merge the shards of one run"
        )
    ns = {n for _, (_, n) in shards}
    if len(ns) != 1:
        raise GraderError(
            f"merge: shards of different N ({', '.join(map(str, sorted(ns)))}); "
            "merge the shards of one run"
        )
    n = ns.pop()
    seen = sorted(k for _, (k, _) in shards)
    missing = [k for k in range(1, n + 1) if k not in seen]
    twice = sorted({k for k in seen if seen.count(k) > 1})
    if twice:
        raise GraderError(f"merge: shard {', '.join(f'{k}/{n}' for k in twice)} given twice")
    if missing:
        raise GraderError(
            f"merge: shard {', '.join(f'{k}/{n}' for k in missing)} missing; "
            f"pass the output folders of all {n} shards"
        )


def merge(
    *, folders: list[Path], out: Path, record=None, roster=None
) -> tuple[list[SubmissionResult], Manifest]:
    """Combine shard folders and write the merged outputs to out (the similarity report over
    the whole class, where every folder kept what it compared). record(results, manifest): see
    grader.batch.run.run. roster: see grader.batch.run.write_outputs."""
    from grader.batch.run import write_outputs

    results, manifest = combine(folders)
    changes = record(results, manifest) if record is not None else None
    write_outputs(
        Path(out), results, manifest, code=corpora(folders), changes=changes, roster=roster
    )
    return results, manifest


def corpora(folders: list[Path]) -> dict | None:
    """The shards' sources.json joined (their submissions together; starters and the course's
    answers are the same in each); None where a folder has none (an older run)."""
    from grader.batch.run import CORPUS_FORMAT, SOURCES

    joined: dict | None = None
    for folder in folders:
        try:
            code = json.loads((Path(folder) / SOURCES).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(code, dict) or code.get("format") != CORPUS_FORMAT:
            return None
        if joined is None:
            joined = {**code, "submissions": dict(code["submissions"])}
        else:
            joined["submissions"].update(code["submissions"])
    return joined
