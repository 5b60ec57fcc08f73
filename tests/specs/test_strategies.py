"""What hypothesis draws for the checks: shapes from named dims with distinct sizes, dtypes, value
ranges, non-contiguous layouts, and per-check seeds that make a run repeatable."""

from __future__ import annotations

import dataclasses

import torch
from conftest import find_check
from hypothesis import given, seed

from grader.specs import strategies


def _draws(exercise, check, n=60, at=0) -> list[dict]:
    """The inputs hypothesis generates for a check under the grader's own settings."""
    seen = []

    @seed(at)
    @strategies.profile(n)
    @given(strategies.inputs(exercise, check))
    def collect(inputs):
        seen.append(inputs)

    collect()
    return seen


def test_named_dims_get_distinct_sizes_and_consistent_shapes(exercises):
    ex = exercises["manual_gradient"]
    draws = _draws(ex, find_check(ex, "mlp_grads_value"))
    assert len(draws) >= 30
    for d in draws:
        n, dim = d["x"].shape
        h, o = d["W1"].shape[0], d["y"].shape[1]
        assert len({n, dim, h, o}) == 4, (n, dim, h, o)  # a transpose cannot pass by chance
        assert d["W1"].shape == (h, dim) and d["W2"].shape == (o, h)
        assert d["b1"].shape == (h,) and d["b2"].shape == (o,) and d["y"].shape == (n, o)
        assert all(t.dtype == torch.float64 for t in d.values())
        assert float(d["x"].abs().max()) <= 2 and float(d["W1"].abs().max()) <= 1


def test_dtypes_layouts_and_like_shapes(exercises):
    ex = exercises["custom_sigmoid"]
    draws = _draws(ex, find_check(ex, "backward_vjp"), n=80)
    dtypes = {str(d["x"].dtype) for d in draws}
    assert dtypes == {"torch.float32", "torch.float64"}
    assert any(not d["x"].is_contiguous() for d in draws)  # strided views are drawn too
    assert any(d["x"].dim() == 0 for d in draws)
    assert all(d["x"].numel() > 0 for d in draws)  # no empty tensor: its instructions say none
    for d in draws:
        assert d["g"].shape == d["x"].shape and d["g"].dtype == d["x"].dtype
        if d["x"].numel():
            assert float(d["x"].abs().max()) <= 12 and float(d["g"].abs().max()) <= 3


def test_seeds_are_per_check_and_repeatable(exercises):
    ex = exercises["manual_gradient"]
    a, b = find_check(ex, "df_value"), find_check(ex, "grad_g_value")
    assert strategies.seed_for(0, ex, a) == strategies.seed_for(0, ex, a)
    assert (
        len(
            {
                strategies.seed_for(0, ex, a),
                strategies.seed_for(0, ex, b),
                strategies.seed_for(1, ex, a),
            }
        )
        == 3
    )
    first, again = _draws(ex, a, n=20, at=5), _draws(ex, a, n=20, at=5)
    assert [d["x"].tolist() for d in first] == [d["x"].tolist() for d in again]
    other = _draws(ex, a, n=20, at=6)
    assert [d["x"].tolist() for d in first] != [d["x"].tolist() for d in other]


def test_draws_do_not_depend_on_the_modules_loaded(exercises, tmp_path, monkeypatch):
    """Hypothesis's pool of constants from "local" modules stays empty: importing a module of
    odd literals between two draws (as another command path imports other grader modules)
    changes nothing."""
    from grader.checks import KINDS
    from grader.grading import examples

    assert strategies.PINNED
    e = exercises["manual_gradient"]
    check = next(c for c in e.checks if c.function == "mlp_grads")
    seed = strategies.seed_for(3, e, check)
    before = examples.draw(e, check, KINDS[check.kind], 30, seed)
    (tmp_path / "odd_constants_mod.py").write_text(
        "A = 1.3886\nB = -0.8772\nC = 0.8657\nD = 3.25\nE = 17\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import odd_constants_mod  # noqa: F401

    after = examples.draw(e, check, KINDS[check.kind], 30, seed)
    assert all(examples.same(a, b) for a, b in zip(before, after))


def test_layouts_are_drawn_by_default_and_contiguous_true_opts_out(exercises):
    """Every tensor argument arrives contiguous, transposed or strided unless its spec says
    `contiguous: true`; `empty: true` alone admits empty tensors."""
    import dataclasses

    ex = exercises["manual_gradient"]
    check = find_check(ex, "mlp_grads_value")
    draws = _draws(ex, check, n=60)
    x = [d["x"] for d in draws]
    assert any(t.is_contiguous() for t in x)
    assert any(t.stride() == (1, t.shape[0]) and t.shape[0] > 1 for t in x)  # transposed
    assert any(t.stride()[-1] == 2 for t in x)  # every other element
    args = tuple(dataclasses.replace(a, contiguous=True) for a in check.args)
    plain = _draws(ex, dataclasses.replace(check, args=args), n=30)
    assert all(t.is_contiguous() for d in plain for t in d.values())
    sig = exercises["custom_sigmoid"]
    vjp = find_check(sig, "backward_vjp")
    args = tuple(dataclasses.replace(a, empty=True) for a in vjp.args)
    assert any(d["x"].numel() == 0 for d in _draws(sig, dataclasses.replace(vjp, args=args), n=80))


def _with_edges(exercise, check, n=10, at=0) -> list[dict]:
    """What a check's hypothesis run is given, in order: its edges, then what it draws."""
    seen = []

    def collect(inputs):
        seen.append(inputs)

    test = strategies.with_edges(
        given(strategies.inputs(exercise, check))(collect), exercise, check
    )
    seed(at)(strategies.profile(n)(test))()
    return seen


TIES = [[0.5, 1.5, 2.5], [-0.5, -1.5, -2.5]]


def test_a_named_edge_is_drawn_first_under_every_seed(exercises):
    ex = exercises["detach_tricks"]
    check = find_check(ex, "ste_forward")
    firsts = []
    for at in (0, 731904522):
        draws = _with_edges(ex, check, at=at)
        assert torch.equal(draws[0]["x"], torch.tensor(TIES, dtype=torch.float64))
        firsts.append(draws[:3])
    # the edges (the ties, then a transposed and a strided x) are the same under both seeds
    for a, b in zip(*firsts):
        assert torch.equal(a["x"], b["x"]) and a["x"].stride() == b["x"].stride()


def test_layouts_are_edges_where_an_argument_takes_every_layout(exercises):
    ex = exercises["detach_tricks"]
    check = find_check(ex, "ste_backward")  # x [N, D], g like x: both in every layout
    for at in (0, 5):
        edges = _with_edges(ex, check, n=3, at=at)[1:3]
        transposed, strided = (e["x"] for e in edges)
        assert transposed.shape[0] > 1 and transposed.shape[1] > 1
        assert transposed.stride() == (1, transposed.shape[0])  # (a transpose's strides)
        assert strided.stride()[-1] == 2
        assert all(e["g"].shape == e["x"].shape for e in edges)
    contiguous = dataclasses.replace(
        check, args=tuple(dataclasses.replace(a, contiguous=True) for a in check.args)
    )
    assert len(strategies.explicit(ex, contiguous)) == 1  # only the ties the spec names


def test_an_edge_names_some_arguments_and_the_rest_are_filled_the_same_every_time(exercises):
    ex = exercises["manual_gradient"]
    check = find_check(ex, "mlp_grads_value")
    first, again = strategies.explicit(ex, check)[0], strategies.explicit(ex, check)[0]
    assert first["x"].tolist() == [[0.0, 0.0, 0.0], [1.0, -0.5, 0.25]]
    assert first["b1"].tolist() == [0.0, 0.0, 0.5, -0.5]
    n, d, h, o = 2, 3, 4, first["y"].shape[1]
    assert len({n, d, h, o}) == 4  # named dims distinct, the edge's own sizes kept
    assert first["W1"].shape == (h, d) and first["W2"].shape == (o, h)
    assert float(first["W1"].abs().max()) <= 1 and first["W1"].dtype == torch.float64
    assert all(torch.equal(first[k], again[k]) for k in first)
    first["x"].zero_()  # a copy: what a caller does to it is not the next run's edge
    assert strategies.explicit(ex, check)[0]["x"].tolist()[1] == [1.0, -0.5, 0.25]


def test_a_starting_state_is_drawn_by_default_and_untracked_opts_out(exercises):
    from grader.checks import KINDS

    ex = exercises["vector_backward"]
    check = find_check(ex, "vector_grad_untouched")  # inputs_untouched: hands x as it is held
    kind = KINDS[check.kind]
    assert kind.starting_states and not KINDS["scenario"].starting_states
    seen = []

    @seed(0)
    @strategies.profile(40)
    @given(kind.strategy(ex, check))
    def collect(inputs):
        seen.append(inputs)

    collect()
    held = [d[strategies.STATE] for d in seen if strategies.STATE in d]
    assert held and len(held) < len(seen)  # both states are drawn
    for state in held:
        assert set(state) == {"x", "v"} and float(state["x"].flatten()[0]) == strategies.OLD_GRAD
    edges = strategies.explicit(ex, check, states=True)
    assert strategies.STATE in edges[-1]  # and one edge holds every argument so, every seed
    fresh = dataclasses.replace(
        check, args=tuple(dataclasses.replace(a, untracked=True) for a in check.args)
    )
    assert not any(strategies.STATE in e for e in strategies.explicit(ex, fresh, states=True))
    assert strategies.held(fresh, edges[-1]) == {}
