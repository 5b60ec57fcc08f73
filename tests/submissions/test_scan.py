"""The static scan follows names to torch, and only to torch."""

from __future__ import annotations

import ast

from grader.submissions.scan import scan

APIS = [
    "torch.autograd",
    "torch.func",
    "torch.Tensor.backward",
    "torch.Tensor.requires_grad_",
    "torch.Tensor.requires_grad",
]


def names(source: str, functions=("df",)):
    return [f.name for f in scan(ast.parse(source), list(functions), APIS)]


def test_direct_and_aliased_uses():
    src = """
import torch
import torch.autograd as ag
from torch.autograd import grad as g
from torch import func
G = torch.autograd.grad

def df(x):
    a = torch.autograd.grad(x, x)
    b = ag.functional.jacobian(x, x)
    c = g(x, x)
    d = func.grad(x)
    e = G(x, x)
    return a
"""
    assert names(src) == [
        "torch.autograd.grad",
        "torch.autograd.functional.jacobian",
        "torch.autograd.grad",
        "torch.func.grad",
        "torch.autograd.grad",
    ]


def test_only_the_listed_functions_are_scanned():
    src = "import torch\ndef df(x):\n    return x\ndef other(x):\n    return torch.autograd.grad(x, x)\n"
    assert names(src) == []
    assert names(src, functions=["*"]) == ["torch.autograd.grad"]


def test_own_class_with_backward_is_fine():
    src = """
class Layer:
    def backward(self, g):
        return g

def df(x):
    layer = Layer()
    return layer.backward(x)
"""
    assert names(src) == []


def test_requires_grad_tricks():
    src = """
import torch
def df(x):
    x.requires_grad_()
    y = torch.ones(3, requires_grad=True)
    x.requires_grad = True
    z = torch.zeros(3, requires_grad=False)
    return x
"""
    assert names(src) == [
        "torch.Tensor.requires_grad_",
        "torch.Tensor.requires_grad",
        "torch.Tensor.requires_grad",
    ]


def test_reading_requires_grad_is_not_a_trick():
    src = """
import torch
def df(x):
    if x.requires_grad:
        x = x.detach()
    flag = x.requires_grad and torch.is_grad_enabled()
    return x * flag
"""
    assert names(src) == []


def test_import_inside_function_and_methods():
    src = """
class Sigmoid:
    @staticmethod
    def forward(ctx, x):
        from torch.func import vjp
        return vjp
"""
    assert [f.name for f in scan(ast.parse(src), ["Sigmoid.forward"], APIS)] == [
        "torch.func.vjp",
        "torch.func.vjp",
    ]
    assert [f.function for f in scan(ast.parse(src), ["Sigmoid"], APIS)][0] == "Sigmoid.forward"


def test_a_name_counts_by_what_it_reaches():
    """A second name for the same torch object is that object; a private name counts only as
    the forbidden API it is an alias of."""
    src = """
import torch
from torch import _C as C
def sigmoid(x):
    return torch._C._special.special_expit(x)
def df(x):
    C._ImperativeEngine().run_backward
    return torch.__version__, torch.exp(x)
"""
    tree = ast.parse(src)
    found = {f.function: f.name for f in scan(tree, ["sigmoid", "df"], ["torch.special.expit"])}
    assert found["sigmoid"] == (
        "torch._C._special.special_expit (private torch API: torch.special.expit)"
    )
    assert "df" not in found  # autograd's engine is no alias of torch.special.expit
    found = {f.function: f.name for f in scan(tree, ["sigmoid", "df"], ["torch.autograd"])}
    assert found == {
        "df": "torch._C._ImperativeEngine (private torch API: torch.autograd.backward)"
    }
    found = scan(
        ast.parse("import torch\ndef g(x):\n    return torch.sigmoid(x)\n"),
        ["g"],
        ["torch.special.expit"],
    )
    assert found == []  # a different function reaching no forbidden object
    from grader.submissions.scan import reaches

    assert reaches("torch._C._VariableFunctions.sigmoid", ["torch.sigmoid"])
    assert reaches("torch.exp", ["torch.sigmoid"]) is None
    assert reaches("torch.__version__", ["torch.sigmoid"]) is None


def test_module_level_aliases_used_by_helpers():
    """A helper does what its caller does: an alias bound at module level to a forbidden or
    private API, used in a function (or lambda, or class) that df names, directly or through
    another helper, is df's use of it; a helper df never names is not read."""
    src = """
import torch
from torch.autograd import forward_ad as fwAD
_md = torch._make_dual
_enter = torch._C._enter_dual_level
_tangent = lambda t: _ud(t)[1]
_ud = torch._unpack_dual

def _inner(x):
    level = _enter()
    return _tangent(_md(x, x, level=level))

def _outer(x):
    return _inner(x)

class _Jvp:
    def run(self, x):
        with fwAD.dual_level():
            return x

def unused(x):
    return torch.autograd.grad(x, x)

def df(x):
    return _outer(x) + _Jvp().run(x)
"""
    found = scan(ast.parse(src), ["df"], APIS)
    assert {(f.function, f.name.split(" ")[0]) for f in found} == {
        ("_tangent", "torch._unpack_dual"),
        ("_inner", "torch._C._enter_dual_level"),
        ("_inner", "torch._make_dual"),
        ("_Jvp", "torch.autograd.forward_ad.dual_level"),
    }
    assert all("unused" != f.function for f in found)
    assert names(src, functions=["unused"]) == ["torch.autograd.grad"]


def test_a_private_name_is_forbidden_only_as_an_alias():
    """No unstated ban: the fused torch._foreach_* ops, torch._C itself and other private names
    that reach no forbidden API are allowed; private homes of a forbidden API are not."""
    from grader.submissions.scan import reaches

    src = """
import torch
def sgd_step(params, lr):
    grads = [p.grad for p in params]
    torch._foreach_add_([p.data for p in params], grads, alpha=-lr)
    torch._C._get_tracing_state()
def clip_grad_norm(params, max_norm):
    norms = torch._foreach_norm([p.grad for p in params])
    torch._foreach_mul_([p.grad for p in params], 0.5)
    return torch.stack(norms)
"""
    tree = ast.parse(src)
    for apis in (["torch.optim"], ["torch.nn.utils"], ["torch.autograd", "torch.func"]):
        assert scan(tree, ["sgd_step", "clip_grad_norm"], apis) == []
    assert reaches("torch._refs.sigmoid", ["torch.sigmoid"])  # a private function of that name
    assert reaches("torch._functorch.eager_transforms.vjp", ["torch.func"])
    assert reaches("torch._functorch", ["torch.func"])
    assert reaches("torch._C._functorch", ["torch.autograd.functional", "torch.func"])
    assert reaches("torch._make_dual", ["torch.autograd"])
    assert reaches("torch._C._ImperativeEngine", ["torch.Tensor.backward"])
    assert reaches("torch._C._ImperativeEngine", ["torch.optim"]) is None
    assert reaches("torch._C", ["torch.autograd"]) is None
