"""Runtime traps inside a worker: forbidden APIs and tampering with torch.

Runs in the untrusted worker. The traps report what they saw; the grader decides what it costs.
Installed before the student's file is imported, so `from torch.autograd import grad` in that
file binds the trapped function.
"""

from __future__ import annotations

import linecache
import os
import sys
import types

import torch
from torch.optim.optimizer import register_optimizer_step_pre_hook
from torch.overrides import TorchFunctionMode
from torch.utils import _python_dispatch, _pytree
from torch.utils._python_dispatch import TorchDispatchMode

# torch attributes a submission might replace to fool a grader that compares in-process.
GUARDED_ATTRIBUTES = (
    "torch.allclose",
    "torch.isclose",
    "torch.equal",
    "torch.isfinite",
    "torch.isnan",
    "torch.isinf",
    "torch.testing.assert_close",
    "torch.Tensor.__eq__",
    "torch.Tensor.__ne__",
    "torch.Tensor.allclose",
    "torch.Tensor.equal",
    "torch.get_default_dtype",
    "torch.Tensor.backward",
    "torch.autograd.grad",
    "torch.autograd.backward",
)


_index: dict[int, list[tuple[object, str]]] | None = None


def alias_index() -> dict[int, list[tuple[object, str]]]:
    """id(object) -> [(module, attribute)] over every torch module loaded: each name under
    which a function is reachable (torch.nn.utils.clip_grad_norm_ is also
    torch.nn.utils.clip_grad.clip_grad_norm_; torch._C._special.special_expit is
    torch.special.expit). Built once (the template builds it before forking workers)."""
    global _index
    if _index is None:
        index: dict[int, list] = {}
        for name, module in list(sys.modules.items()):
            if not (name == "torch" or name.startswith("torch.")):
                continue
            if not isinstance(module, types.ModuleType):
                continue
            for attr, value in list(vars(module).items()):
                if callable(value) and not isinstance(value, (type, types.ModuleType)):
                    index.setdefault(id(value), []).append((module, attr))
        _index = index
    return _index


class ForbiddenCall(BaseException):
    """Raised into student code that reaches a forbidden API (BaseException: hard to swallow)."""


def resolve(path: str):
    """The object a dotted path names, with its owner and attribute name; None if absent."""
    parts = path.split(".")
    if parts[0] != "torch":
        return None
    owner, obj = None, torch
    for name in parts[1:]:
        owner = obj
        obj = getattr(obj, name, None)
        if obj is None:
            return None
    return owner, parts[-1], obj


def matches(path: str, patterns) -> bool:
    return any(path == p or path.startswith(p + ".") for p in patterns)


ENGINE = "torch.autograd.backward"
"""What a backward pass run by autograd's engine is reported as, however it was started
(Tensor.backward, torch.autograd.grad, torch.func, torch._C._ImperativeEngine().run_backward)."""
ENGINE_RULES = ("torch.autograd", "torch.autograd.backward", "torch.autograd.grad")
LEAF_RULES = ("torch.Tensor.requires_grad_", "torch.Tensor.requires_grad")
"""A rule naming one of these forbids making a tensor that requires grad, by any spelling
(requires_grad_, setting requires_grad, requires_grad=True, a factory)."""
FORWARD_AD = {
    "torch._C._enter_dual_level": "torch.autograd.forward_ad.enter_dual_level",
    "torch._C._exit_dual_level": "torch.autograd.forward_ad.exit_dual_level",
    "torch._make_dual": "torch.autograd.forward_ad.make_dual",
    "torch._make_dual_copy": "torch.autograd.forward_ad.make_dual",
    "torch._unpack_dual": "torch.autograd.forward_ad.unpack_dual",
}
"""torch's dual-number primitives, what forward-mode autograd computes with, by the API they are
reported as: torch.autograd.forward_ad, torch.func.jvp, jacfwd, linearize and functorch's aliases
all run them, and so does a file that calls them under any name (a string, an alias, torch._C,
torch._C._VariableFunctions, torch.ops.aten). A rule covering that API (torch.autograd, a "no
autograd" rule) forbids them: they are trapped by identity, wherever torch lends them."""
OPTIMIZER_STEP = "torch.optim.Optimizer.step"
SEP = " | "
"""Fields of a hit as the worker reports it: api | how | name | line | source (see
grader.checks.messages.forbidden_parts)."""

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_graph_task_id = torch._C._current_graph_task_id
_push_function_mode = torch._C._push_on_torch_function_stack
_pop_function_mode = torch._C._pop_torch_function_stack
_function_modes = torch._C._len_torch_function_stack
_push_dispatch_mode = _python_dispatch._push_mode
_pop_dispatch_mode = _python_dispatch._pop_mode
_dispatch_modes = torch._C._len_torch_dispatch_stack
_OpOverload, _OpPacket = torch._ops.OpOverload, torch._ops.OpOverloadPacket
_Tensor = torch.Tensor
_tree_leaves = _pytree.tree_leaves
_register_step_hook = register_optimizer_step_pre_hook
_getframe = sys._getframe


def _function(value) -> bool:
    return callable(value) and not isinstance(value, (type, types.ModuleType))


def _tree(pattern: str, module: types.ModuleType) -> list[types.ModuleType]:
    """The modules a module pattern covers: itself, its submodules, and the torch modules
    whose code defines what it exports in __all__ (torch.func's functions live in
    torch._functorch)."""
    out = {pattern: module}
    for name, m in list(sys.modules.items()):
        if name.startswith(pattern + ".") and isinstance(m, types.ModuleType):
            out[name] = m
    by_file = {
        getattr(m, "__file__", None): m
        for name, m in list(sys.modules.items())
        if name.startswith("torch.") and isinstance(m, types.ModuleType)
    }
    for attr in getattr(module, "__all__", ()):
        value = getattr(module, attr, None)
        if isinstance(value, types.FunctionType):
            home = by_file.get(value.__code__.co_filename)
            if home is not None:
                out.setdefault(home.__name__, home)
    return list(out.values())


def _home(value) -> str | None:
    """Where a function is defined: its code's file for Python functions (torch.func's say
    __module__ = "torch.func"), its __module__ otherwise."""
    if isinstance(value, types.FunctionType):
        return value.__code__.co_filename
    home = getattr(value, "__module__", None)
    return home if isinstance(home, str) else None


class Trap:
    """Forbidden APIs observed where torch runs them, active only while `forbid` holds
    patterns (the rules of the student's function that runs):

    - each forbidden function object is replaced under every name torch gives it (any
      module's attribute: sys.modules, importlib, getattr and from-imports all reach it); a
      module pattern covers the functions of its submodules and of the modules defining what
      it exports; a class named by a pattern has its methods trapped;
    - a TorchFunctionMode sees every torch operation on tensors, however it was reached
      (Tensor methods through TensorBase, torch._C._VariableFunctions, torch.ops.aten, a
      torch module such as nn.Sigmoid calling it);
    - optimizers: a global step pre-hook (any torch.optim optimizer, however it was built);
    - "no autograd" rules: a TorchDispatchMode sees any backward pass autograd's engine runs
      while the student's function runs, and the function mode any tensor that requires grad
      made from tensors that did not.

    Only calls the student's code makes count (see students_call): the grader's own code in
    the window (its backward through the student's output, its leaves) does not.
    """

    def __init__(self, scratch: str | None = None):
        self.forbid: tuple[str, ...] = ()
        self.hits: list[str] = []
        self.originals: dict[str, object] = {}
        self.scratch = os.path.join(os.path.realpath(scratch), "") if scratch else None
        self.targets: dict[int, str] = {}
        """id(original) -> the API name it is reported as."""
        self.apis: dict[str, tuple[str, ...]] = {
            ENGINE: ("torch.autograd.backward", "torch.autograd.grad", "torch.Tensor.backward")
        }
        """API name -> the patterns it was trapped for (a rule naming one forbids it)."""
        self.ops: dict[str, str] = {}
        """aten operator name (aten::sigmoid) -> the API name of the function behind it."""
        self.phase = None
        self.body = None
        """The frame of the grader's probe that opened the window (see students_call)."""
        self.hooked = False
        self.placed: list[tuple[object, str, object, object, bool]] = []
        """(owner, attribute, the trap put there, what was there, whether the owner held it
        itself rather than inherited it): what uninstall undoes."""
        self.handle = None
        """The optimizers' step hook's handle."""

    # -- installing ---------------------------------------------------------------------

    def install(self, patterns) -> None:
        for pattern in sorted(set(patterns)):
            self._install_primitives(pattern)
            found = resolve(pattern)
            if found is None:
                continue
            owner, name, obj = found
            if isinstance(obj, types.ModuleType):
                tree = _tree(pattern, obj)
                homes = {m.__name__ for m in tree} | {getattr(m, "__file__", "") for m in tree}
                for module in tree:
                    for attr, value in list(vars(module).items()):
                        # The module's own functions: what torch._C or torch.overrides lend
                        # it (has_torch_function) is theirs, and torch calls it everywhere.
                        if _function(value) and _home(value) in homes:
                            api = (
                                f"{pattern}.{attr}"
                                if module is obj
                                else f"{module.__name__}.{attr}"
                            )
                            self._target(module, attr, api, pattern, value)
                if matches("torch.optim", [pattern]):
                    self._hook_optimizers(pattern)
            elif isinstance(obj, type):
                self._trap_class(obj, pattern)
            elif callable(obj):
                self._target(owner, name, pattern, pattern, obj)
                op = getattr(obj, "__name__", None)
                key = f"aten::{op}"  # torch.sigmoid is the operator aten::sigmoid
                if isinstance(op, str) and self.ops.get(key, "torch.Tensor.").startswith(
                    "torch.Tensor."
                ):
                    self.ops[key] = self.targets[id(obj)]

    def _install_primitives(self, pattern: str) -> None:
        """The primitives (FORWARD_AD) behind an API the pattern covers: each trapped by
        identity under every name torch gives it, and as the aten operator it is."""
        for path, api in FORWARD_AD.items():
            found = resolve(path) if matches(api, [pattern]) else None
            if found is None or not callable(found[2]):
                continue
            owner, name, obj = found
            self.targets.setdefault(id(obj), api)
            self._target(owner, name, self.targets[id(obj)], pattern, obj)
            self.ops[f"aten::{path.rsplit('.', 1)[-1]}"] = self.targets[id(obj)]

    def _target(self, owner, name: str, api: str, pattern: str, original) -> None:
        api = self.targets.setdefault(id(original), api)
        self.apis[api] = tuple(sorted(set(self.apis.get(api, ())) | {pattern}))
        self._wrap(owner, name, f"{_dotted(owner)}.{name}", original)
        for place, attr in alias_index().get(id(original), []):
            self._wrap(place, attr, f"{place.__name__}.{attr}", original)

    def _trap_class(self, cls: type, pattern: str) -> None:
        for attr, value in list(vars(cls).items()):
            raw = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
            if not isinstance(raw, types.FunctionType):
                continue
            api = f"{pattern}.{attr}"
            self.targets[id(raw)] = api
            self.apis[api] = (pattern,)
            trapped = self._trapped(raw, api, attr)
            if isinstance(value, classmethod):
                trapped = classmethod(trapped)
            elif isinstance(value, staticmethod):
                trapped = staticmethod(trapped)
            try:
                setattr(cls, attr, trapped)
            except (AttributeError, TypeError):
                continue
            self.originals[api] = value
            self.placed.append((cls, attr, trapped, value, True))

    def _hook_optimizers(self, pattern: str) -> None:
        self.apis[OPTIMIZER_STEP] = tuple(
            sorted(set(self.apis.get(OPTIMIZER_STEP, ())) | {pattern})
        )
        if self.hooked:
            return
        self.hooked = True
        trap = self

        def step_hook(optimizer, args, kwargs):
            cls = type(optimizer)
            trap.observe(OPTIMIZER_STEP, f"{cls.__module__}.{cls.__qualname__}.step")

        self.handle = _register_step_hook(step_hook)

    def _wrap(self, owner, name: str, key: str, original) -> None:
        """Replace owner.name (the object `original`) by a trap; key: that place's name."""
        if key in self.originals or getattr(owner, name, None) is not original:
            return
        api = self.targets[id(original)]
        trapped = self._trapped(original, api, key)
        own = name in vars(owner)  # else inherited (a Tensor method of TensorBase's)
        try:
            setattr(owner, name, trapped)
        except (AttributeError, TypeError):
            return
        self.originals[key] = original
        self.placed.append((owner, name, trapped, original, own))

    def _trapped(self, original, api: str, spelled: str):
        trap = self

        def trapped(*args, **kwargs):
            if trap.forbid:
                trap.observe(api, spelled)
            return original(*args, **kwargs)

        trapped.__name__ = getattr(original, "__name__", api.rsplit(".", 1)[-1])
        trapped.__qualname__ = getattr(original, "__qualname__", trapped.__name__)
        trapped.__doc__ = getattr(original, "__doc__", None)
        return trapped

    def uninstall(self) -> bool:
        """Put back what install replaced (a portable worker that serves its submission's next
        exercise gets that exercise's trap); False where something else had replaced a trap
        since (the student's code: that worker is not reused)."""
        whole = True
        for owner, name, trapped, original, own in reversed(self.placed):
            if vars(owner).get(name) is not trapped:
                whole = False
                continue
            try:
                if own:
                    setattr(owner, name, original)
                else:
                    delattr(owner, name)
            except (AttributeError, TypeError):
                whole = False
        self.placed.clear()
        if self.handle is not None:
            self.handle.remove()
            self.handle = None
        return whole

    # -- observing ----------------------------------------------------------------------

    def forbidden(self, api: str) -> bool:
        """Whether the window's rules forbid `api`: one of the patterns it was trapped for
        is under a rule of the window."""
        if not self.forbid:
            return False
        return any(matches(p, self.forbid) for p in self.apis.get(api, (api,)))

    def observe(self, api: str, spelled: str, how: str = "name") -> None:
        """A forbidden API ran: record it (and raise into the code) when the window forbids
        it and the student's code made the call."""
        if self.forbidden(api) and self.students_call():
            self.hit(api, spelled, how)

    def hit(self, api: str, spelled: str, how: str) -> None:
        line, source = self._where()
        text = SEP.join([api, how, spelled, str(line), source.replace("|", "/")[:80]])
        self.hits.append(text)
        raise ForbiddenCall(text)

    def _where(self) -> tuple[int, str]:
        """The line of the student's own file nearest the call, and its text."""
        frame = _getframe(1)
        while frame is not None:
            name = frame.f_code.co_filename  # "<string>" for exec'd code: not a file
            if (
                self.scratch
                and os.path.isabs(name)
                and os.path.realpath(name).startswith(self.scratch)
            ):
                try:
                    text = linecache.getline(name, frame.f_lineno).strip()
                except Exception:  # the student's file, gone or unreadable
                    text = ""
                return frame.f_lineno, text
            frame = frame.f_back
        return 0, ""

    def students_call(self) -> bool:
        """Whether the student's code made the call now running. Outward from here, torch's
        own frames and the grader's pass on; reaching the probe's frame that opened the
        window through those only, the call is the grader's (its backward, its leaves). The
        student's entry point (probes.Entry), any frame of theirs (their file, exec'd code,
        a thread of theirs) or a frame from elsewhere makes it the student's."""
        codes = _grader_codes()
        frame = _getframe(1)
        while frame is not None:
            if frame is self.body:
                return False
            code = frame.f_code
            if code in _ENTRY_CODES:
                return True
            if code not in codes and not code.co_filename.startswith(_TORCH_DIR):
                return True
            frame = frame.f_back
        return True

    def active(self, patterns, phase=None, body=None):
        return _Active(self, tuple(patterns), phase, body)


def _dotted(owner) -> str:
    if isinstance(owner, types.ModuleType):
        return owner.__name__
    return f"{getattr(owner, '__module__', '')}.{getattr(owner, '__qualname__', '')}"


_ENTRY_CODES: set = set()
"""Code of the grader's call into a student's entry point (probes.Entry.__call__): a call under
it is the student's even when the entry point is a torch function itself."""


def entry_code(code) -> None:
    _ENTRY_CODES.add(code)


def _grader_codes() -> frozenset:
    """The code objects of the grader's modules in the worker, as they were before any
    student code ran (see snapshot)."""
    global _codes
    if _codes is None:
        seen = _watched[1][0] if _watched is not None else []
        found: set = set()
        todo = [code for _, _, _, code in seen if code is not None]
        while todo:  # with the code of their nested functions, lambdas and comprehensions
            code = todo.pop()
            if code not in found:
                found.add(code)
                todo += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        _codes = frozenset(found)
    return _codes


_codes: frozenset | None = None


class _FunctionMode(TorchFunctionMode):
    """Sees every torch function on tensors while a window is open."""

    def __init__(self, trap: Trap, leaves: bool):
        super().__init__()
        self.trap, self.leaves = trap, leaves

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        trap = self.trap
        api = _api_of(trap, func)
        if api is not None:
            trap.observe(api[0], api[1], "op")
        out = func(*args, **kwargs)
        if self.leaves and trap.forbid:
            made = args[0] if _is_setter(func) and args else out
            if _requires_grad(made) and not any(
                isinstance(t, _Tensor) and t.requires_grad
                for t in _tree_leaves((args[1:] if _is_setter(func) else args, kwargs))
            ):
                rule = next((r for r in LEAF_RULES if matches(r, trap.forbid)), LEAF_RULES[0])
                trap.observe(rule, _name_of(func), "leaf")
        return out


def _is_setter(func) -> bool:
    return getattr(func, "__name__", None) == "__set__"


def _requires_grad(value) -> bool:
    if isinstance(value, _Tensor):
        return bool(value.requires_grad)
    if isinstance(value, (tuple, list)):
        return any(isinstance(v, _Tensor) and v.requires_grad for v in value)
    return False


def _name_of(func) -> str:
    if isinstance(func, (_OpOverload, _OpPacket)):
        return f"torch.ops.{str(func).replace('::', '.')}"
    owner = getattr(func, "__self__", None)
    if _is_setter(func) and owner is not None:
        return f"torch.Tensor.{getattr(owner, '__name__', '?')} = ..."
    qual = getattr(func, "__qualname__", None) or getattr(func, "__name__", "?")
    qual = qual.replace("TensorBase.", "Tensor.").replace("_VariableFunctionsClass.", "")
    module = getattr(func, "__module__", None) or "torch"
    return f"{module}.{qual}" if not qual.startswith("Tensor.") else f"torch.{qual}"


def _api_of(trap: Trap, func) -> tuple[str, str] | None:
    """(the forbidden API, the name it ran under) for a torch function, or None."""
    target = trap.targets.get(id(func))
    if target is not None:
        return target, _name_of(func)
    if isinstance(func, _OpOverload):
        op = func._schema.name
    elif isinstance(func, _OpPacket):
        op = func._qualified_op_name
    else:
        return None
    found = trap.ops.get(op) or trap.ops.get(op.rstrip("_"))
    return (found, _name_of(func)) if found else None


class _EngineMode(TorchDispatchMode):
    """Sees the operations autograd's engine runs: one inside a backward pass while the
    student's function runs (phase "call") is that function using autograd."""

    def __init__(self, trap: Trap):
        super().__init__()
        self.trap = trap

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        trap = self.trap
        if (
            trap.forbid
            and _graph_task_id() != -1
            and getattr(trap.phase, "name", "call") == "call"
        ):
            trap.observe(ENGINE, "autograd engine", "engine")
        return func(*args, **(kwargs or {}))


class _Active:
    def __init__(self, trap: Trap, patterns, phase, body):
        self.trap, self.patterns, self.phase, self.body = trap, patterns, phase, body
        self.modes: list = []

    def __enter__(self):
        trap = self.trap
        self.saved = (trap.forbid, trap.phase, trap.body)
        trap.forbid = self.patterns
        trap.hits = []
        if trap.body is None:  # the outermost window's probe (a nested one is the student's)
            trap.body = self.body
        trap.phase = self.phase
        if self.patterns:
            leaves = any(matches(r, self.patterns) for r in LEAF_RULES)
            self.function_mode = _FunctionMode(trap, leaves)
            self.depth = (_function_modes(), _dispatch_modes())
            _push_function_mode(self.function_mode)
            self.engine_mode = None
            if any(matches(r, self.patterns) for r in ENGINE_RULES) or matches(
                "torch.Tensor.backward", self.patterns
            ):
                self.engine_mode = _EngineMode(trap)
                _push_dispatch_mode(self.engine_mode)

    def __exit__(self, *exc):
        trap = self.trap
        if self.patterns:
            # Pop down to where the window found the stacks (a mode the student left pushed
            # goes too; ours must not outlive the window).
            while _dispatch_modes() > self.depth[1]:
                _pop_dispatch_mode()
            while _function_modes() > self.depth[0]:
                _pop_function_mode()
        trap.forbid, trap.phase, trap.body = self.saved
        return False


GUARDED_MODULES = (
    "grader.common.wire",
    "grader.common.plugins",
    "grader.sandbox",
    "grader_plugins",
)
"""The grader's code that runs in a worker (see _probe_code)."""
_guarded_names: tuple[str, ...] | None = None


def _probe_code(rescan: bool = False) -> list[tuple]:
    """The grader's own code loaded in the worker (the probes that observe the student's
    objects, the wire format, these traps), as _probe_entries: functions with their code, and
    the methods of its classes. A file that patches them to forge its observations is reported
    as tampering, like one that patches torch."""
    global _guarded_names
    if _guarded_names is None or rescan:  # the worker's first, before any student code runs
        _guarded_names = tuple(n for n in list(sys.modules) if n.startswith(GUARDED_MODULES))
    return list(_probe_entries(_guarded_names))


def _probe_entries(names):
    """(dotted path, namespace, attribute, object, identity) of each piece of code _probe_code
    looks at, in the modules named (not every module of torch, on every call)."""
    for name in names:
        module = sys.modules.get(name)
        if module is None:  # removed: its entries are missing from the new snapshot
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, types.FunctionType):
                yield f"{name}.{attr}", module, attr, value, id(value) ^ id(value.__code__)
            elif isinstance(value, type) and value.__module__ == name:
                for k, v in list(vars(value).items()):
                    if isinstance(v, types.FunctionType):
                        yield f"{name}.{attr}.{k}", value, k, v, id(v) ^ id(v.__code__)
                yield f"{name}.{attr}", module, attr, value, id(value)


_watched: tuple[dict, list] | None = None
"""The worker's first snapshot and what it saw, as (snapshot, [(namespace, attribute, object,
its code or None)]): tampered() compares objects with these directly, and takes a new snapshot
only when one differs."""


def snapshot(rescan: bool = False) -> dict[str, int]:
    """Identities of the guarded torch attributes and of the grader's code in the worker, to
    notice later replacement. rescan: find the grader's modules again (the worker does before
    it imports the student's file; later snapshots look at those modules only)."""
    global _watched, _codes
    entries = _probe_code(rescan)
    out = {path: ident for path, _, _, _, ident in entries}
    for path in GUARDED_ATTRIBUTES:
        found = resolve(path)
        out[path] = id(found[2]) if found else 0
    if rescan:
        seen = [
            (owner, attr, value, value.__code__ if isinstance(value, types.FunctionType) else None)
            for _, owner, attr, value, _ in entries
        ]
        guarded = [(path, (resolve(path) or (None, None, None))[2]) for path in GUARDED_ATTRIBUTES]
        modules = [(name, sys.modules.get(name)) for name in _guarded_names]
        _watched = (out, (seen, guarded, modules))
        _codes = None
    return out


def _unchanged(watched) -> bool:
    """True when every object of the first snapshot is still in its place, with its code: the
    new snapshot would equal it (checked object by object, without building one)."""
    seen, guarded, modules = watched
    for name, module in modules:
        if sys.modules.get(name) is not module:
            return False
    for owner, attr, value, code in seen:
        if owner.__dict__.get(attr) is not value or (
            code is not None and value.__code__ is not code
        ):
            return False
    for path, value in guarded:
        found = resolve(path)
        if (found[2] if found else None) is not value:
            return False
    return True


def tampered(before: dict[str, int]) -> list[str]:
    if _watched is not None and before is _watched[0] and _unchanged(_watched[1]):
        return []
    now = snapshot()
    return [path for path, ident in before.items() if now.get(path) != ident]
