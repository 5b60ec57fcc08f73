"""gradient_penalty's plugin: its kinds (kinds.py), their reference (teacher.py), the critic
recipes (critics.py) and the critic probe, run in this process."""

from __future__ import annotations

import importlib.util

import pytest
import torch
from conftest import EXERCISES, SOLUTIONS, plugin
from inprocess import judge, probe
from torch.func import functional_call

from grader.common.errors import SpecError
from grader.loader import specfile

critics = plugin("gradient_penalty", "critics")
DrawnCritic = plugin("gradient_penalty", "data").DrawnCritic
dead_samples = plugin("gradient_penalty", "data").dead_samples
reference = plugin("gradient_penalty", "teacher").reference

EXERCISE = specfile.load(EXERCISES / "gradient_penalty" / "exercise.yaml")
CHECKS = {c.id: c for c in EXERCISE.checks}
F64 = torch.float64


def _load_key():
    found = importlib.util.spec_from_file_location("gp_key", SOLUTIONS / "gradient_penalty.py")
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module.gradient_penalty


KEY = _load_key()


def example(arch="mlp", act="tanh", n=3, seed=0, dead=None, preset=False, lam=2.5, flat=False):
    """Inputs as the kinds' strategy draws them, built by hand."""
    shape = (4,) if arch == "mlp" else (2, 3, 5)
    gen = torch.Generator().manual_seed(seed)
    real = torch.rand((n, *shape), generator=gen, dtype=F64) * 4 - 2
    fake = torch.rand((n, *shape), generator=gen, dtype=F64) * 4 - 2
    alpha = torch.rand(n, generator=gen, dtype=F64)
    recipe = critics.Recipe(arch, act, shape, (3,), flat_output=flat)
    drawn = DrawnCritic(recipe, critics.init_weights(recipe, seed))
    if dead is not None:
        x_hat = critics_x_hat(real, fake, alpha)
        drawn.weights = critics.kill_sample(recipe, drawn.weights, x_hat[dead], 0.25)
        drawn.dead = dead
    if preset:
        drawn.preset_grads = [
            torch.randn(w.shape, generator=gen, dtype=F64) for w in drawn.weights
        ]
    inputs = {"real": real, "fake": fake, "alpha": alpha, "critic": drawn}
    if lam is not None:
        inputs["lam"] = lam
    return inputs


def critics_x_hat(real, fake, alpha):
    a = alpha.reshape(-1, *[1] * (real.dim() - 1))
    return a * real + (1 - a) * fake


def _penalty(norm):
    """A student's gradient_penalty with its own per-sample norm function."""

    def gradient_penalty(critic, real, fake, alpha, lam=10.0):
        x = critics_x_hat(real, fake, alpha).detach().requires_grad_(True)
        out = critic(x)
        (g,) = torch.autograd.grad(out, x, torch.ones_like(out), create_graph=True)
        return lam * ((norm(g.flatten(1)) - 1) ** 2).mean()

    return gradient_penalty


# --- critics ---------------------------------------------------------------------------------


def test_recipe_round_trips_and_refuses_nonsense():
    recipe = critics.Recipe("cnn", "leaky_relu", (2, 3, 5), (3, 2), kernel=2, flat_output=True)
    assert critics.Recipe.from_dict(recipe.to_dict()) == recipe
    assert "Conv2d(2→3, kernel 2) → LeakyReLU(0.2)" in recipe.describe()
    with pytest.raises(ValueError):
        critics.Recipe("rnn", "tanh", (4,), (3,))
    with pytest.raises(ValueError):
        critics.Recipe("mlp", "tanh", (2, 3, 5), (3,))
    with pytest.raises(ValueError):
        critics.Recipe.from_dict({"arch": "mlp"})


@pytest.mark.parametrize("arch, shape", [("mlp", (4,)), ("cnn", (2, 3, 5))])
@pytest.mark.parametrize("kernel", [1, 2, 3])
@pytest.mark.parametrize("flat", [False, True])
def test_build_gives_the_declared_output_and_parameters(arch, shape, kernel, flat):
    recipe = critics.Recipe(arch, "relu", shape, (3, 2), kernel=kernel, flat_output=flat)
    weights = critics.init_weights(recipe, 7)
    rng = torch.random.get_rng_state()
    net = critics.build(recipe, weights)
    assert torch.equal(torch.random.get_rng_state(), rng)  # no init: nothing drawn
    assert net(torch.zeros(5, *shape, dtype=F64)).shape == ((5,) if flat else (5, 1))
    assert [n for n, _ in net.named_parameters()] == critics.parameter_names(recipe)
    assert all(torch.equal(p, w) for p, w in zip(net.parameters(), weights))


def test_build_refuses_weights_that_do_not_fit():
    recipe = critics.Recipe("mlp", "tanh", (4,), (3,))
    weights = critics.init_weights(recipe, 0)
    with pytest.raises(ValueError, match="needs 4 weight tensors, got 3"):
        critics.build(recipe, weights[:3])
    with pytest.raises(ValueError, match="weight of shape"):
        critics.build(recipe, [weights[0].T] + weights[1:])


def test_weights_depend_on_the_seed_only():
    recipe = critics.Recipe("mlp", "tanh", (4,), (3,))
    a, b, c = (critics.init_weights(recipe, s) for s in (1, 1, 2))
    assert all(torch.equal(x, y) for x, y in zip(a, b))
    assert not torch.equal(a[0], c[0])


@pytest.mark.parametrize("arch", ["mlp", "cnn"])
def test_kill_sample_zeroes_that_input_gradient_and_sqrt_turns_nan(arch):
    inputs = example(arch, "relu", n=4, dead=2)
    ref = reference(inputs["critic"], inputs["real"], inputs["fake"], inputs["alpha"], 3.0)
    assert 2 in dead_samples(ref)
    assert all(torch.isfinite(g).all() for g in ref.grads)
    # The case the check exists for: the naive norm's parameter gradients are NaN here.
    net = critics.build(inputs["critic"].recipe, inputs["critic"].weights)
    naive = _penalty(lambda g: torch.sqrt((g**2).sum(1)))
    value = naive(net, inputs["real"], inputs["fake"], inputs["alpha"], 3.0)
    grads = torch.autograd.grad(value, list(net.parameters()), allow_unused=True)
    assert any(g is not None and torch.isnan(g).any() for g in grads)


@pytest.mark.parametrize("arch", ["mlp", "cnn"])
def test_kill_sample_is_the_same_whatever_order_the_inputs_are_added_in(arch):
    """The killed bias is a drawn input, committed and compared bit for bit: it is each unit's
    pre-activation correctly rounded (math.fsum), not a BLAS or oneDNN sum whose order (and so
    last bits) depends on the CPU. Summed in another order, it is the same to the bit."""
    if arch == "mlp":
        recipe = critics.Recipe("mlp", "relu", (6,), (5,))
        perm = torch.tensor([4, 1, 5, 0, 3, 2])
    else:
        recipe = critics.Recipe("cnn", "relu", (3, 4, 5), (2,), kernel=3)
        perm = torch.tensor([2, 0, 1])
    weights = critics.init_weights(recipe, 7)
    sample = (
        torch.rand(recipe.sample_shape, generator=torch.Generator().manual_seed(3), dtype=F64) * 4
        - 2
    )
    bias = critics.kill_sample(recipe, weights, sample, 0.25)[1]
    shuffled = [weights[0][:, perm]] + weights[1:]  # the inputs (channels) in another order
    assert torch.equal(critics.kill_sample(recipe, shuffled, sample[perm], 0.25)[1], bias)
    with torch.no_grad():  # and what torch's kernels give, within their rounding
        if arch == "mlp":
            peak = weights[0] @ sample
        else:
            pre = torch.nn.functional.conv2d(sample[None], weights[0], padding=1)
            peak = pre[0].amax(dim=(1, 2))
    assert torch.allclose(bias, -peak - 0.25, rtol=0, atol=1e-14)


# --- the reference ---------------------------------------------------------------------------


@pytest.mark.parametrize("arch, act", [("mlp", "softplus"), ("cnn", "tanh")])
def test_reference_agrees_with_a_per_sample_loop_and_finite_differences(arch, act):
    inputs = example(arch, act, n=3, lam=1.5)
    drawn = inputs["critic"]
    ref = reference(drawn, inputs["real"], inputs["fake"], inputs["alpha"], 1.5)
    net = critics.build(drawn.recipe, drawn.weights)
    x_hat = critics_x_hat(inputs["real"], inputs["fake"], inputs["alpha"])
    terms = []
    for row in x_hat:
        x = row[None].clone().requires_grad_(True)
        (g,) = torch.autograd.grad(net(x).sum(), x)
        terms.append((g.norm() - 1) ** 2)
    assert torch.allclose(ref.value, 1.5 * torch.stack(terms).mean(), rtol=1e-12, atol=0)

    names = critics.parameter_names(drawn.recipe)

    def penalty_of(*weights):
        x = x_hat.clone().requires_grad_(True)
        out = functional_call(net, dict(zip(names, weights)), (x,))
        (g,) = torch.autograd.grad(out.sum(), x, create_graph=True)
        return 1.5 * ((g.flatten(1).norm(dim=1) - 1) ** 2).mean()

    leaves = [w.clone().requires_grad_(True) for w in drawn.weights]
    assert torch.autograd.gradcheck(penalty_of, leaves)
    grads = torch.autograd.grad(penalty_of(*leaves), leaves, allow_unused=True)
    for got, want in zip(grads, ref.grads):
        assert torch.allclose(torch.zeros_like(want) if got is None else got, want, rtol=1e-10)


# --- the kinds, judged in process ------------------------------------------------------------


@pytest.mark.parametrize(
    "check_id, inputs",
    [
        ("penalty_vectors", example("mlp", "relu", flat=True)),
        ("penalty_images", example("cnn", "leaky_relu")),
        ("default_lam", example("mlp", lam=None)),
        ("param_grads_images", example("cnn", "softplus")),
        ("dead_relu_finite", example("mlp", "relu", dead=1)),
        ("no_side_effects", example("cnn", preset=True)),
        ("no_side_effects", example("cnn", preset=False)),
    ],
)
def test_the_key_passes_every_kind(check_id, inputs):
    assert judge(EXERCISE, CHECKS[check_id], inputs, gradient_penalty=KEY) is None


def _message(check_id, inputs, fn) -> str:
    verdict = judge(EXERCISE, CHECKS[check_id], inputs, gradient_penalty=fn)
    assert verdict is not None and verdict.status == "failed"
    assert verdict.message.id != verdict.message.en
    return verdict.message.en


def test_a_summed_penalty_is_named():
    def summed(critic, real, fake, alpha, lam=10.0):
        return KEY(critic, real, fake, alpha, lam) * real.shape[0]

    message = _message("penalty_vectors", example(n=3), summed)
    assert "summed over the batch" in message and "Critic: MLP 4→3→1 (Tanh)" in message
    verdict = judge(EXERCISE, CHECKS["penalty_vectors"], example(n=3), gradient_penalty=summed)
    assert verdict.mistake.id == "penalty_sum"  # what a class report counts, in a few words
    assert verdict.mistake.title.en == "the penalty summed over the batch, not averaged"
    assert ".mean()" in verdict.hint.en and ".mean()" not in verdict.message.en


def test_a_wrong_default_shows_the_factor():
    def default_one(critic, real, fake, alpha, lam=1.0):
        return KEY(critic, real, fake, alpha, lam)

    assert "as if lam were 1. Called without lam, the default must be 10.0" in _message(
        "default_lam", example(lam=None), default_one
    )


def test_a_float_is_not_a_penalty():
    def item(*args):
        return KEY(*args).item()

    assert ".item()" in _message("penalty_images", example("cnn"), item)


def test_no_graph_to_the_parameters_is_named():
    def detached(*args):
        return KEY(*args).detach()

    assert "graph" in _message("param_grads_vectors", example(), detached)
    # how to fix it is the hint, which the default feedback level keeps back
    verdict = judge(EXERCISE, CHECKS["param_grads_vectors"], example(), gradient_penalty=detached)
    assert "create_graph=True" in verdict.hint.en and "create_graph" not in verdict.message.en


def test_nan_where_the_input_gradient_is_zero_is_explained():
    naive = _penalty(lambda g: torch.sqrt((g**2).sum(1)))
    message = _message("dead_relu_finite", example("mlp", "relu", n=4, dead=3), naive)
    assert "non-finite" in message and "the zero vector" in message
    verdict = judge(
        EXERCISE,
        CHECKS["dead_relu_finite"],
        example("mlp", "relu", n=4, dead=3),
        gradient_penalty=naive,
    )
    assert "infinite derivative at 0" in verdict.hint.en and "sqrt" not in verdict.message.en
    assert "sample 3: ∂critic/∂x̂ = 0" in message


def test_an_epsilon_inside_the_sqrt_is_within_tolerance():
    eps = _penalty(lambda g: torch.sqrt((g**2).sum(1) + 1e-12))
    inputs = example("mlp", "relu", n=4, dead=0)
    assert judge(EXERCISE, CHECKS["dead_relu_finite"], inputs, gradient_penalty=eps) is None
    assert judge(EXERCISE, CHECKS["penalty_vectors"], inputs, gradient_penalty=eps) is None


def test_backward_inside_is_caught_with_and_without_the_callers_grad():
    def with_backward(critic, real, fake, alpha, lam=10.0):
        value = KEY(critic, real, fake, alpha, lam)
        value.backward(retain_graph=True)
        return value

    assert "wrote .grad" in _message("no_side_effects", example("cnn"), with_backward)
    assert "is changed after" in _message(
        "no_side_effects", example("cnn", preset=True), with_backward
    )


def test_zero_grad_inside_is_caught_when_the_caller_had_gradients():
    def zeroing(critic, *args):
        critic.zero_grad()
        return KEY(critic, *args)

    assert judge(EXERCISE, CHECKS["no_side_effects"], example(), gradient_penalty=zeroing) is None
    assert "is None after" in _message("no_side_effects", example(preset=True), zeroing)


def test_probe_reports_the_callers_tensors_and_no_graph():
    def marks(critic, real, fake, alpha, lam=10.0):
        real.requires_grad_(True)
        return KEY(critic, real, fake, alpha, lam).detach()

    reply, values = probe(CHECKS["param_grads_vectors"], example(), gradient_penalty=marks)
    assert reply["ok"] is True and values["grads"] is None
    assert values["outs"][0].requires_grad is False
    assert values["args_after"][0].requires_grad is True
    assert values["data"]["grads_after"] == [None] * 4
    assert "requires_grad of the caller's input `real`" in _message(
        "no_side_effects", example(), marks
    )


# --- the spec --------------------------------------------------------------------------------

GOOD = (EXERCISES / "gradient_penalty" / "exercise.yaml").read_text()


@pytest.mark.parametrize(
    "old, new, words",
    [
        (
            "      lam: {float: [0.5, 20]}\n    points: 3",
            "      lam: {shape: [N]}\n    points: 3",
            "lam must be a float",
        ),
        (
            "      alpha: {shape: [N], low: 0, high: 1}\n      lam: {float: [0.5, 20]}\n    points: 3",
            "      alpha: {shape: [D], low: 0, high: 1}\n      lam: {float: [0.5, 20]}\n    points: 3",
            "alpha needs the shape [N]",
        ),
        ("    default_lam: 10\n", "", "give `default_lam:`"),
        (
            "    dead_sample: true\n",
            "    dead_sample: true\n    activations: [selu]\n",
            "unknown activation 'selu'",
        ),
        (
            "      real: {shape: [N, D], low: -2, high: 2}\n      fake: {like: real, low: -2, high: 2}\n"
            "      alpha: {shape: [N], low: 0, high: 1}\n      lam: {float: [0.5, 20]}\n    points: 3",
            "      fake: {shape: [N, D], low: -2, high: 2}\n      real: {like: fake, low: -2, high: 2}\n"
            "      alpha: {shape: [N], low: 0, high: 1}\n      lam: {float: [0.5, 20]}\n    points: 3",
            "expected args real, fake, alpha",
        ),
    ],
)
def test_spec_errors_name_the_place(tmp_path, old, new, words):
    assert old in GOOD
    folder = tmp_path / "gradient_penalty"
    folder.mkdir()
    (folder / "exercise.yaml").write_text(GOOD.replace(old, new, 1))
    with pytest.raises(SpecError) as err:
        specfile.load(folder / "exercise.yaml", root=tmp_path)
    assert words in err.value.message
    assert err.value.file == "gradient_penalty/exercise.yaml" and err.value.line
    assert err.value.key.startswith("checks[")


def test_a_reply_without_the_probes_shape_is_an_error_not_a_crash():
    from grader.checks import KINDS
    from grader.checks.base import Judging

    inputs = example()
    _, good = probe(CHECKS["param_grads_vectors"], inputs, gradient_penalty=KEY)
    broken = [
        ("penalty_vectors", {"outs": None}),
        ("param_grads_vectors", dict(good, grads=good["grads"][:2])),
        ("no_side_effects", dict(good, data={"grads_after": []})),
        ("no_side_effects", dict(good, args_after=None)),
    ]
    for check_id, values in broken:
        check = CHECKS[check_id]
        verdict = KINDS[check.kind].judge(Judging(EXERCISE, check, inputs), {"ok": True}, values)
        assert verdict.status == "error" and "malformed" in verdict.message.en, check_id
