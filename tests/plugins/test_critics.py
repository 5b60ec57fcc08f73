"""Critics built from a recipe and weights: the module torch would build, and no RNG used."""

from __future__ import annotations

import pytest
import torch
from conftest import plugin
from torch import nn

critics = plugin("gradient_penalty", "critics")

RECIPES = [
    critics.Recipe("mlp", "tanh", (3,), (4, 2)),
    critics.Recipe("cnn", "relu", (2, 5, 5), (3, 2), kernel=3, flat_output=True),
]


def _by_torch(recipe, weights, dtype):
    """The plain way: a module on the CPU, weights copied in."""
    net = nn.Sequential(*critics._layers(recipe, dtype)).to_empty(device="cpu")
    with torch.no_grad():
        for p, w in zip(net.parameters(), weights):
            p.copy_(w)
    return net


@pytest.mark.parametrize("recipe", RECIPES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_build_is_the_module_torch_builds(recipe, dtype):
    weights = critics.init_weights(recipe, seed=3)  # float64: build converts like copy_
    rng = torch.random.get_rng_state()
    net = critics.build(recipe, weights, dtype)
    assert torch.equal(rng, torch.random.get_rng_state())  # the student's randomness is theirs
    want = _by_torch(recipe, weights, dtype)
    assert (
        [n for n, _ in net.named_parameters()]
        == critics.parameter_names(recipe)
        == [n for n, _ in want.named_parameters()]
    )
    for p, q in zip(net.parameters(), want.parameters()):
        assert type(p) is nn.Parameter and p.requires_grad and p.is_leaf
        assert p.device.type == "cpu" and p.dtype == dtype and p.is_contiguous()
        assert torch.equal(p, q) and p._version == q._version
    x = torch.randn(2, *recipe.sample_shape, dtype=dtype)
    assert torch.equal(net(x), want(x))
    assert len({p.data_ptr() for p in net.parameters()}) == len(weights)  # none shared


def test_build_refuses_weights_that_do_not_fit():
    recipe = RECIPES[0]
    weights = critics.init_weights(recipe, seed=3)
    with pytest.raises(ValueError):
        critics.build(recipe, weights[:-1])
    with pytest.raises(ValueError):
        critics.build(recipe, [w.t() if w.dim() == 2 else w for w in weights])
