"""nan_debugging's fixed training run (its plugin's training.py), its probe and the training_run
kind."""

from __future__ import annotations

import pytest
import torch
from conftest import EXERCISES, plugin
from inprocess import judge, probe

from grader.common.errors import SpecError
from grader.loader import specfile

training = plugin("nan_debugging", "training")

EXERCISE = specfile.load(EXERCISES / "nan_debugging" / "exercise.yaml")
CHECK = next(c for c in EXERCISE.checks if c.kind == "training_run")


def torch_lsm(x):
    return torch.log_softmax(x, dim=-1)


def torch_norm(v):
    return torch.linalg.vector_norm(v, dim=-1)


def naive_lsm(x):
    e = torch.exp(x)
    return torch.log(e / e.sum(-1, keepdim=True))


def naive_norm(v):
    return torch.sqrt((v * v).sum(-1))


def test_data_is_fixed_and_has_dead_rows():
    setup = training.Setup()
    (X1, y1), (X2, y2) = training.data(setup), training.data(setup)
    assert torch.equal(X1, X2) and torch.equal(y1, y2)
    assert training.zero_rows(setup) >= 1
    assert X1.abs().max() > 500  # large enough that exp(logits) overflows in float32


def test_the_reference_run_is_finite_and_the_naive_one_is_not():
    setup = training.Setup()
    ok = training.run(setup, torch_lsm, torch_norm)
    assert all(map(torch.isfinite, map(torch.tensor, ok.losses)))
    assert all(all(row) for row in ok.grads_finite + ok.params_finite)
    norm_only = training.run(setup, torch_lsm, naive_norm)
    # The loss is fine at step 0; the NaN is born in W1's gradient (zero rows of h).
    assert torch.isfinite(torch.tensor(norm_only.losses[0]))
    assert norm_only.grads_finite[0] == [False, True, True]
    lsm_only = training.run(setup, naive_lsm, torch_norm)
    assert not torch.isfinite(torch.tensor(lsm_only.losses[0]))


@pytest.mark.parametrize(
    "options, words",
    [
        ({"stpes": 3}, "unknown setting(s) stpes"),
        ({"steps": "five"}, "steps: expected int"),
        ({"lr": True}, "lr: expected float"),
        ({"dtype": "int8"}, "dtype: expected float32 or float64"),
        ({"steps": 0}, "at least 1"),
    ],
)
def test_setup_options_are_validated(options, words):
    with pytest.raises(ValueError, match=r".*" + words.replace("(", r"\(").replace(")", r"\)")):
        training.Setup.from_options(options)


def test_probe_reports_the_same_trace_as_the_loop():
    reply, values = probe(CHECK, {}, log_softmax=torch_lsm, safe_norm=naive_norm)
    assert reply["ok"] is True
    want = training.run(training.Setup(steps=5), torch_lsm, naive_norm)
    got = values["data"]
    assert torch.allclose(
        got["losses"].data,
        torch.tensor(want.losses, dtype=torch.float64),
        rtol=0,
        atol=0,
        equal_nan=True,
    )
    assert got["grads_finite"].data.tolist() == want.grads_finite


@pytest.mark.parametrize(
    "lsm, norm, words",
    [
        (naive_lsm, torch_norm, "loss became nan at step 0"),
        (torch_lsm, naive_norm, "gradient of W1 became NaN/inf at step 0"),
        (lambda x: torch.log(torch.softmax(x, -1) + 1e-8), torch_norm, "while with torch's"),
    ],
)
def test_judge_names_what_broke(lsm, norm, words):
    verdict = judge(EXERCISE, CHECK, {}, log_softmax=lsm, safe_norm=norm)
    assert verdict.status == "failed" and words in verdict.message.en, verdict.message.en


def test_judge_accepts_torchs_functions():
    assert judge(EXERCISE, CHECK, {}, log_softmax=torch_lsm, safe_norm=torch_norm) is None


def test_bad_setup_in_a_spec_names_the_key(tmp_path):
    text = (EXERCISES / "nan_debugging" / "exercise.yaml").read_text()
    old = "setup: {steps: 5, seed: 0}"
    assert old in text
    folder = tmp_path / "nan_debugging"
    folder.mkdir()
    (folder / "exercise.yaml").write_text(text.replace(old, "setup: {steps: 5, sead: 0}"))
    with pytest.raises(SpecError) as err:
        specfile.load(folder / "exercise.yaml", root=tmp_path)
    assert err.value.key.endswith(".setup") and "sead" in err.value.message


def test_the_starters_loop_is_the_one_the_grader_runs(starters):
    import importlib.util

    path = starters / "nan_debugging.py"
    module_spec = importlib.util.spec_from_file_location("nan_debugging_starter", path)
    starter = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(starter)
    setup = training.Setup()
    X, y = starter.sensor_data(setup.seed)
    want_X, want_y = training.data(setup)
    torch.testing.assert_close(X, want_X, rtol=1e-12, atol=0)
    torch.testing.assert_close(y, want_y, rtol=0, atol=0)  # labels: integers
    params, want = starter.initial_params(setup.seed), training.initial_params(setup)
    for k in training.PARAMS:
        torch.testing.assert_close(params[k], want[k], rtol=1e-12, atol=0)
