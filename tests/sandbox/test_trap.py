"""Tampering with torch or with the grader's code in a worker is seen, after any call."""

from __future__ import annotations

import re

import pytest
import torch

from grader.common import wire
from grader.sandbox import trap


def _swap_function(monkeypatch):
    monkeypatch.setattr(wire, "tensor_bytes", lambda t: b"")


def _swap_code(monkeypatch):
    monkeypatch.setattr(
        wire.Decoder.value, "__code__", (lambda self, node, depth=0: node).__code__
    )


def _swap_method(monkeypatch):
    monkeypatch.setattr(wire.Decoder, "tensor", lambda self, i: None)


def _swap_class(monkeypatch):
    monkeypatch.setattr(wire, "Decoder", type("Decoder", (), {}))


def _swap_torch(monkeypatch):
    monkeypatch.setattr(torch, "allclose", lambda *a, **k: True)


def _swap_torch_module(monkeypatch):
    monkeypatch.setattr(torch, "autograd", type(torch)("autograd"))


def _drop_module(monkeypatch):
    import sys

    monkeypatch.delitem(sys.modules, "grader.common.wire")


@pytest.mark.parametrize(
    "swap, name",
    [
        (_swap_function, "grader.common.wire.tensor_bytes"),
        (_swap_code, "grader.common.wire.Decoder.value"),
        (_swap_method, "grader.common.wire.Decoder.tensor"),
        (_swap_class, "grader.common.wire.Decoder"),
        (_swap_torch, "torch.allclose"),
        (_swap_torch_module, "torch.autograd.grad"),
        (_drop_module, "grader.common.wire.recv"),
    ],
)
def test_a_swap_is_named_and_undoing_it_clears_it(monkeypatch, swap, name):
    before = trap.snapshot(rescan=True)
    assert trap.tampered(before) == []
    with monkeypatch.context() as m:
        swap(m)
        assert name in trap.tampered(before)
        assert trap.tampered(dict(before)) == trap.tampered(before)  # the walk agrees
    assert trap.tampered(before) == []


# Forbidden APIs are judged by what runs in the worker (docs/security.md, "Forbidden APIs"):
# each spelling of torch's sigmoid below reaches the same kernel, hidden from the static scan.
SIGMOID_KEY = """
import torch


class Sigmoid(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = SPELLING
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        y, = ctx.saved_tensors
        return grad_output * y * (1 - y)


def sigmoid(x):
    return Sigmoid.apply(x)
"""

SPELLINGS = {
    "variable_functions": 'getattr(torch, "_" + "C")._VariableFunctions.sigmoid(x)',
    "vars": 'vars(torch)["sig" + "moid"](x)',
    "module_dict": 'torch.__dict__["spec" + "ial"].expit(x)',
    "attrgetter": '__import__("operator").attrgetter("special.expit")(torch)(x)',
    "dunder_import": '__import__("tor" + "ch").sigmoid(x)',
    "method_in_place": 'getattr(x.clone(), "sigmoid" + "_")()',
    "importlib": '__import__("importlib").import_module("torch.nn.functional").sigmoid(x)',
    "exec": 'eval("x.sig" + "moid()", {"x": x})',
    "aten_overload": 'getattr(torch.ops.aten, "sig" + "moid").default(x)',
    "tensorbase": 'getattr(torch, "_" + "C").TensorBase.sigmoid(x)',
    "nn_module": 'getattr(torch.nn, "Sig" + "moid")()(x)',
    "distributions": "torch.distributions.utils.logits_to_probs(x, is_binary=True)",
    "helper_file": '__import__("_squash").squash(x)',
    "thread": '__import__("_squash").in_thread(x)',
}

HELPER = """
import threading

import torch


def squash(x):
    return torch.sigmoid(x)


def in_thread(x):
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("y", torch.special.expit(x)))
    t.start()
    t.join()
    return box.get("y", torch.exp(x) / (1 + torch.exp(x)))
"""


def _sigmoid_rows(result):
    ex = result.exercises[0]
    return ex, {c.id: c for c in ex.checks}


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_every_spelling_of_a_forbidden_api_is_the_same_call(grade_files, name):
    files = {"custom_sigmoid.py": SIGMOID_KEY.replace("SPELLING", SPELLINGS[name])}
    files["_squash.py"] = HELPER
    ex, rows = _sigmoid_rows(grade_files(files, ids=["custom_sigmoid"]))
    forbidden = rows["no_builtin_sigmoid"]
    assert forbidden.status == "failed", (name, forbidden.message)
    text = forbidden.message.en
    assert "sigmoid" in text, text
    # The call is stopped where it runs, by the trap: the checks that called it fail, blocked by
    # the forbidden API it reached (the static scan fails no check but the forbidden_api one).
    value = rows["forward_value"]
    assert value.status == "failed" and (value.cause or "").startswith("forbidden:"), value
    api = value.cause.split(":")[1]
    assert f"called {api}" in value.message.en and "this exercise forbids" in value.message.en
    # The forbidden_api check lists that call: from the trap, or, where the static scan reads
    # this spelling too (getattr(torch, "_C").TensorBase.sigmoid), once, as the scan named it
    # (the same API on the same line is not listed again from the trap).
    line = re.search(r"line (\d+): `", value.message.en)
    named = line is not None and f"{api} (line {line[1]}, " in text
    assert "at run time" in text or named, text


def test_an_entry_point_that_is_torch_itself_is_the_students_call(grade_files):
    """`sigmoid = torch.sigmoid` under another spelling: the probe calls torch directly, and
    the call is still the student's (the grader's own calls are not)."""
    files = {"custom_sigmoid.py": 'import torch\n\nsigmoid = getattr(torch, "sig" + "moid")\n'}
    ex, rows = _sigmoid_rows(grade_files(files, ids=["custom_sigmoid"]))
    assert rows["no_builtin_sigmoid"].status == "failed"
    assert "sigmoid called torch.sigmoid" in rows["forward_value"].message.en


def test_the_runtime_message_says_what_ran_under_which_name(grade_files):
    files = {"custom_sigmoid.py": SIGMOID_KEY.replace("SPELLING", SPELLINGS["vars"])}
    ex, rows = _sigmoid_rows(grade_files(files, ids=["custom_sigmoid"]))
    message = rows["forward_value"].message
    assert "torch.sigmoid" in message.en and 'line 8: `y = vars(torch)["sig" +' in message.en
    assert "baris 8" in message.id and "yang dilarang" in message.id


def test_the_graders_own_backward_through_forbidden_code_is_not_counted(grade_files):
    """loss_gradients forbids torch.autograd in the whole file; its checks run the grader's
    own backward through the student's loss: the answer key keeps full marks."""
    from conftest import SOLUTIONS

    result = grade_files(
        {"loss_gradients.py": SOLUTIONS / "loss_gradients.py"}, ids=["loss_gradients"]
    )
    ex = result.exercises[0]
    assert ex.score == ex.max_score, [(c.id, c.message) for c in ex.checks if c.message]


# Forward-mode autograd (dual numbers) is autograd, whatever runs it and however it is named:
# manual_gradient's df computes f's derivative each way below, and loses the rule's points.
DUAL_KEY = """
import torch
import importlib


def _f(d):
    return torch.exp(-(d**2)) * torch.sin(3 * d) + torch.log(1 + d**2) * torch.sigmoid(d)


def df(x):
SPELLING
"""

DUAL_SPELLINGS = {
    "forward_ad": """
    fwAD = importlib.import_module("torch.autograd." + "forward_ad")
    with fwAD.dual_level():
        return fwAD.unpack_dual(_f(fwAD.make_dual(x, torch.ones_like(x)))).tangent
""",
    "strings": """
    C = getattr(torch, "_" + "C")
    level = getattr(C, "_enter_" + "dual_level")()
    try:
        d = getattr(torch, "_make_" + "dual")(x, torch.ones_like(x), level=level)
        return getattr(torch, "_unpack_" + "dual")(_f(d), level=level)[1]
    finally:
        getattr(C, "_exit_" + "dual_level")(level=level)
""",
    # The level entered by the original function (taken out of the trap's own wrapper): the
    # dual is still seen where torch runs it, as torch._C._VariableFunctions and as aten.
    "unwrapped_level": """
    def inner(f, name):
        cells = [c.cell_contents for c in f.__closure__ or ()]
        return next(c for c in cells if getattr(c, "__name__", "") == name)

    C = getattr(torch, "_" + "C")
    level = inner(C._enter_dual_level, "_enter_dual_level")()
    try:
        if x.numel() % 2:
            d = C._VariableFunctions._make_dual(x, torch.ones_like(x), level)
        else:
            d = torch.ops.aten._make_dual.default(x, torch.ones_like(x), level)
        return torch.ops.aten._unpack_dual.default(_f(d), level)[1]
    finally:
        inner(C._exit_dual_level, "_exit_dual_level")(level=level)
""",
    "func_jvp": """
    return getattr(torch, "fu" + "nc").jvp(_f, (x,), (torch.ones_like(x),))[1]
""",
    "func_linearize": """
    return vars(torch.func)["linear" + "ize"](_f, x)[1](torch.ones_like(x))
""",
    "functorch_jvp": """
    return importlib.import_module("functorch").jvp(_f, (x,), (torch.ones_like(x),))[1]
""",
}


@pytest.mark.parametrize("name", sorted(DUAL_SPELLINGS))
def test_forward_mode_autograd_is_autograd_however_it_is_named(grade_files, name):
    from conftest import SOLUTIONS

    key = (SOLUTIONS / "manual_gradient.py").read_text()
    files = {"manual_gradient.py": key + DUAL_KEY.replace("SPELLING", DUAL_SPELLINGS[name])}
    result = grade_files(files, ids=["manual_gradient"])
    rows = {c.id: c for c in result.exercises[0].checks}
    forbidden = rows["no_autograd_in_manual"]
    assert forbidden.status == "failed" and "at run time" in forbidden.message.en, (
        name,
        forbidden.message,
    )
    assert rows["df_value"].status == "failed", rows["df_value"].message
    assert rows["grad_g_value"].status == "passed"  # the key's own, untouched


FORWARD_ONLY = """
import importlib, sys
import torch
from grader.sandbox.trap import ForbiddenCall, Trap

trap = Trap()
trap.install(["torch.autograd"])
x = torch.rand(3, dtype=torch.float64)
one = torch.ones_like(x)
ways = {
    "torch.func.jvp": lambda: torch.func.jvp(torch.sin, (x,), (one,)),
    "torch.func.jacfwd": lambda: torch.func.jacfwd(torch.sin)(x),
    "torch.func.linearize": lambda: torch.func.linearize(torch.sin, x)[1](one),
    "functorch.jvp": lambda: importlib.import_module("functorch").jvp(torch.sin, (x,), (one,)),
    "torch.autograd.functional.jvp": lambda: torch.autograd.functional.jvp(torch.sin, x, one),
}
for name, way in ways.items():
    try:
        with trap.active(["torch.autograd"]):
            way()
        print(name, "ran")
    except ForbiddenCall as exc:
        print(name, "stopped:", str(exc).split(" | ")[0])
with trap.active(["torch.optim"]):  # a rule that does not cover autograd: allowed
    print("other rule:", torch.func.jvp(torch.sin, (x,), (one,))[1].shape)
print("outside:", torch.func.jvp(torch.sin, (x,), (one,))[1].shape)
"""


def test_a_rule_forbidding_torch_autograd_forbids_torch_func_forward_mode():
    """Without torch.func in the rule: jvp, jacfwd, linearize and functorch's aliases all make
    dual numbers, and are stopped as torch.autograd.forward_ad."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", FORWARD_ONLY], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    for name in ("torch.func.jvp", "torch.func.jacfwd", "torch.func.linearize", "functorch.jvp"):
        assert f"{name} stopped: torch.autograd.forward_ad." in out.stdout, out.stdout
    assert "torch.autograd.functional.jvp stopped: torch.autograd" in out.stdout
    assert lines[-2:] == ["other rule: torch.Size([3])", "outside: torch.Size([3])"], lines
