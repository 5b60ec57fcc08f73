"""Passed reference trials are remembered per spec bytes and code, never changing a verdict."""

from __future__ import annotations

import pytest
from conftest import EXERCISES, ROOT, SOLUTIONS, mutant_folders, verdicts_of

from grader.common.errors import SpecError
from grader.grading.grade import grade
from grader.loader import committed, reftrial, speccache, specfile

SPEC = EXERCISES / "manual_gradient" / "exercise.yaml"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADER_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def trials(monkeypatch):
    """Counts the reference trials really run (of specs the course's committed examples do
    not vouch for: grader.loader.committed.vouched, tested in tests/loader/test_committed.py)."""
    monkeypatch.setattr(committed, "vouched", lambda exercise: False)
    ran = []
    real = reftrial.try_references

    def counted(exercise, display):
        ran.append(exercise.id)
        real(exercise, display)

    monkeypatch.setattr(reftrial, "try_references", counted)
    return ran


def test_a_passed_trial_is_remembered_for_the_same_bytes_only(cache):
    data = SPEC.read_bytes()
    assert not speccache.tried(data)
    speccache.remember(data)
    assert speccache.tried(data) and not speccache.tried(data + b"\n")
    assert len(list((cache / "references-tried").iterdir())) == 1


def test_loading_twice_tries_the_references_once(cache, trials):
    first, second = specfile.load(SPEC), specfile.load(SPEC)
    assert trials == ["manual_gradient"]
    assert first == second


def test_a_failing_trial_is_never_remembered(cache, trials, tmp_path):
    folder = tmp_path / "manual_gradient"
    folder.mkdir()
    (folder / "exercise.yaml").write_text(SPEC.read_text().replace("torch.sin", "torch.sinn", 1))
    for _ in range(2):
        with pytest.raises(SpecError, match="sinn"):
            specfile.load(folder / "exercise.yaml")
    assert trials == ["manual_gradient"] * 2
    assert not (cache / "references-tried").exists()


def test_off_or_unwritable_only_costs_time(tmp_path, monkeypatch, trials):
    monkeypatch.setenv("GRADER_CACHE", "off")
    specfile.load(SPEC)
    specfile.load(SPEC)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("GRADER_CACHE", str(blocker))  # cannot hold a folder
    specfile.load(SPEC)
    specfile.load(SPEC)
    assert trials == ["manual_gradient"] * 4


def test_the_key_changes_with_the_code(cache, monkeypatch):
    data = SPEC.read_bytes()
    speccache.remember(data)
    monkeypatch.setattr(speccache, "code_digest", lambda: "another grader or torch")
    assert not speccache.tried(data)


def test_same_seed_same_results_with_the_cache_off_and_warm(
    tmp_path, monkeypatch, sandbox, fast_config
):
    """The answer key and a few mutants graded with specs loaded cold (cache off) and warm."""
    ids = ["manual_gradient", "grad_clipping"]
    subs = {
        "key": SOLUTIONS,
        **{name: path for name, (path, _) in mutant_folders(tmp_path, ids).items()},
    }
    runs = []
    for setting in ("off", str(tmp_path / "cache"), str(tmp_path / "cache")):
        monkeypatch.setenv("GRADER_CACHE", setting)
        loaded = {e.id: e for e in specfile.discover(EXERCISES, root=ROOT)}
        chosen = [loaded[i] for i in ids]
        runs.append(
            {
                name: verdicts_of(
                    grade(
                        submission_dir=path,
                        exercises=chosen,
                        config=fast_config,
                        sandbox=sandbox,
                        name=name,
                    )
                )
                for name, path in subs.items()
            }
        )
    assert runs[0] == runs[1] == runs[2]
    for name, result in runs[0].items():  # the key keeps full marks, each mutant loses points
        mine = [e for e in result["exercises"] if name == "key" or name.startswith(e["id"] + "-")]
        assert [e["status"] == "passed" for e in mine] == [name == "key"] * len(mine)
        assert mine
    assert any(
        c["counterexample"] for r in runs[0].values() for e in r["exercises"] for c in e["checks"]
    )  # the comparison covers counterexamples too


def test_the_cache_key_is_its_owners_alone(cache):
    k = speccache.secret()
    assert k is not None and len(k) == speccache.KEY_BYTES
    key_file = cache / speccache.KEY_FILE
    assert key_file.stat().st_mode & 0o777 == 0o600 and cache.stat().st_mode & 0o077 == 0
    assert speccache.secret() == k  # made once, then read
    speccache._secret.cache_clear()
    assert speccache.secret() == k  # kept across processes
    speccache._secret.cache_clear()
    key_file.chmod(0o644)  # readable by others: not a secret, so no cache at all
    assert speccache.secret() is None
    data = SPEC.read_bytes()
    speccache.remember(data)
    assert not speccache.tried(data)
    speccache._secret.cache_clear()
    key_file.unlink()
    key_file.symlink_to(cache / "elsewhere")  # a link where the key should be: never followed
    (cache / "elsewhere").write_bytes(bytes(speccache.KEY_BYTES))
    assert speccache.secret() is None
    speccache._secret.cache_clear()


def test_a_marker_not_sealed_with_the_key_is_ignored(cache, trials):
    data = SPEC.read_bytes()
    speccache.remember(data)
    marker = next((cache / "references-tried").iterdir())
    assert speccache.tried(data)
    for forged in (b"", b"x" * 32, marker.read_bytes()[:-1] + b"!"):  # planted, not sealed
        marker.write_bytes(forged)
        assert not speccache.tried(data)
    specfile.load(SPEC)
    assert trials == ["manual_gradient"]  # tried again, and remembered sealed
    assert speccache.tried(data)
