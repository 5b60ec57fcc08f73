"""`merge`: shard outputs combine into the same files one run writes, and mismatches are refused.

Uses hand-made results; test_batch.py merges real shards of a graded class.
"""

import pytest
from classdata import ENV, klass, submission

from grader.batch.files import Manifest
from grader.batch.merge import combine, merge
from grader.batch.run import write_outputs
from grader.common.errors import GraderError


def files(folder):
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def manifest(results, shard=None, lang="en"):
    return Manifest(
        language=lang,
        exercises=["ex"],
        shard=shard,
        files={r.submission: {"ex": f"hash-{r.submission}"} for r in results},
    )


def shards(tmp_path, results, n, lang="en"):
    folders = []
    for k in range(1, n + 1):
        part = results[k - 1 :: n]
        folder = tmp_path / f"shard{k}"
        write_outputs(folder, part, manifest(part, (k, n), lang))
        folders.append(folder)
    return folders


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_merged_shards_equal_one_run(tmp_path, n):
    results = klass()
    write_outputs(tmp_path / "whole", results, manifest(results))
    folders = shards(tmp_path, results, n)
    merge(folders=folders[::-1], out=tmp_path / "merged")  # the order given does not matter
    assert files(tmp_path / "merged") == files(tmp_path / "whole")


def test_a_missing_shard_is_named(tmp_path):
    folders = shards(tmp_path, klass(), 3)
    with pytest.raises(GraderError, match="shard 2/3 missing"):
        combine([folders[0], folders[2]])


def test_a_shard_given_twice_is_refused(tmp_path):
    folders = shards(tmp_path, klass(), 2)
    with pytest.raises(GraderError, match="twice"):
        combine([folders[0], folders[0], folders[1]])


def test_results_of_another_seed_are_refused(tmp_path):
    other = submission("zoe", {}, env={**ENV, "seed": 8})
    write_outputs(tmp_path / "a", klass(), manifest(klass()))
    write_outputs(tmp_path / "b", [other], manifest([other]))
    with pytest.raises(GraderError, match="different seed"):
        combine([tmp_path / "a", tmp_path / "b"])


def test_another_language_is_refused(tmp_path):
    a, b = klass()[:2], klass()[2:]
    write_outputs(tmp_path / "a", a, manifest(a, (1, 2), "en"))
    write_outputs(tmp_path / "b", b, manifest(b, (2, 2), "id"))
    with pytest.raises(GraderError, match="language"):
        combine([tmp_path / "a", tmp_path / "b"])


def test_a_folder_without_batch_output_is_named(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(GraderError, match=r"empty/results.json: not found"):
        combine([tmp_path / "empty"])


def test_merge_runs_without_torch(tmp_path):
    """The merge job of the CI example installs no torch."""
    import os
    import subprocess
    import sys

    from conftest import ROOT

    folders = shards(tmp_path, klass(), 2)
    code = (
        "import sys; sys.modules['torch'] = None; from grader.cli.main import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "merge",
            *map(str, folders),
            "--out",
            str(tmp_path / "class"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "class" / "feedback" / "ana.md").is_file()
