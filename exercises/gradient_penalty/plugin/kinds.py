"""Kinds for a gradient penalty on a critic (WGAN-GP): its value, its gradients with respect to
the critic's parameters, and its side effects.

The student's function is called as fn(critic, real, fake, alpha[, lam]). The critic is drawn
here (the plugin's critics.py: a recipe and its weights) and rebuilt by the worker from that data; the
teacher's grader builds the same critic and computes the reference (the plugin's teacher.py) with
torch autograd; a students' release reads what it recorded.
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

from . import critics
from grader.specs import strategies
from grader.checks.compare import compare
from grader.checks.messages import both, mismatch
from grader.specs.model import FloatArg, TensorArg, Text
from grader.common.wire import TensorFacts
from grader.checks.base import Judging, Kind, Mistake, Verdict
from grader.checks.effects import InputsUntouched
from .data import DIAGNOSES, FIXES, TITLES, DrawnCritic, Reference, dead_samples

ARGS = ("real", "fake", "alpha")


def _lam(ctx: Judging) -> float:
    return float(ctx.inputs["lam"]) if "lam" in ctx.inputs else float(
        ctx.check.options["default_lam"])


def _reference(ctx: Judging) -> Reference:
    def compute():
        from .teacher import reference

        i = ctx.inputs
        return reference(i["critic"], i["real"], i["fake"], i["alpha"], _lam(ctx))

    return ctx.remember("penalty", compute)


def _suspects(ctx: Judging, ref: Reference) -> list:
    """(name, value) of each mistake in DIAGNOSES at these inputs."""
    def compute():
        from .teacher import suspects

        i = ctx.inputs
        return suspects(i["critic"], i["real"], i["fake"], i["alpha"], _lam(ctx), ref)

    return ctx.remember("suspects", compute)


def diagnose(ctx: Judging, ref: Reference, got: float) -> Text | None:
    """The common mistakes whose value this answer has; all of them, since at a shrunk example
    (alpha = 0, say) several can give the same value."""
    i = ctx.inputs
    passed_lam = "lam" in i
    found = [DIAGNOSES[name] for name in matching(ctx, ref, got)
             if ctx.confirmed is None or name in ctx.confirmed]
    if not found and not passed_lam and float(ref.value) != 0:
        # Called without lam: the answer's own default shows as a constant factor.
        default = float(ctx.check.options["default_lam"])
        ratio = got / float(ref.value)
        return both("Nilaimu = penalty yang benar × {r:.6g}, seperti penalty dengan lam = {l:.6g}. "
                    "Dipanggil tanpa lam, nilai bawaannya harus {d!r}.",
                    "Your value = the right penalty × {r:.6g}, as if lam were {l:.6g}. Called "
                    "without lam, the default must be {d!r}.", r=ratio, l=ratio * default,
                    d=default)
    if len(found) <= 1:
        return found[0] if found else None
    return both("Pada input ini beberapa kesalahan memberi nilai yang sama: {l}",
                "At these inputs several mistakes give the same value: {l}",
                l=_join(found, both(" Atau: ", " Or: ")))


def fix(ctx: Judging, ref: Reference, got: float) -> Text | None:
    """How to fix the one confirmed mistake this answer has here (FIXES), the hint the
    feedback level keeps back; None where none or several match."""
    mistake = named(ctx, ref, got)
    return FIXES[mistake.id.removeprefix("penalty_")] if mistake is not None else None


def named(ctx: Judging, ref: Reference, got: float) -> Mistake | None:
    """The one confirmed mistake (DIAGNOSES) this answer has here, as a class report counts it;
    None where none or several match."""
    found = [name for name in matching(ctx, ref, got)
             if ctx.confirmed is None or name in ctx.confirmed]
    if len(found) != 1:
        return None
    return Mistake(f"penalty_{found[0]}", TITLES[found[0]])


def matching(ctx: Judging, ref: Reference, got: float) -> list[str]:
    """The names of the common mistakes (DIAGNOSES) whose value this answer has here."""
    passed_lam = "lam" in ctx.inputs
    return [name for name, value in _suspects(ctx, ref)
            if (passed_lam or name != "no_lam") and _close(got, value)]


def _close(got: float, value: torch.Tensor) -> bool:
    return bool(torch.isclose(torch.tensor(got, dtype=torch.float64), value.detach().double(),
                              rtol=1e-6, atol=1e-9))


def _dead(ctx: Judging, ref: Reference | None) -> list[int]:
    """Samples whose input gradient is exactly zero: any the reference shows, else the drawn one."""
    if ref is not None:
        return dead_samples(ref)
    dead = ctx.inputs["critic"].dead
    return [] if dead is None else [dead]


def _malformed(ctx: Judging) -> Verdict:
    """A reply that does not have the probe's shape: the worker's code was replaced."""
    return Verdict("error", both(
        "Proses pekerja mengirim data rusak saat menjalankan {fn}.",
        "The worker process sent malformed data while running {fn}.", fn=ctx.check.function))


def _first_out(values):
    outs = values.get("outs")
    return outs[0] if isinstance(outs, list) and len(outs) == 1 else _MISSING


def _items(value, n: int, kind) -> bool:
    """value is a list/tuple of n entries, each None or of type kind."""
    return isinstance(value, (list, tuple)) and len(value) == n and all(
        v is None or isinstance(v, kind) for v in value)


_MISSING = object()


def _join(texts: list, sep: Text) -> Text:
    return Text(id=sep.id.join(t.id for t in texts), en=sep.en.join(t.en for t in texts))


def _critic_text(ctx: Judging, text: Text, ref: Reference | None = None) -> Text:
    """The text, then the critic it was found with (and its samples with a zero input
    gradient), so the student can rebuild a similar case."""
    drawn = ctx.inputs["critic"]
    dead = _dead(ctx, ref)
    dead = "" if not dead else both("; sampel {i}: ∂critic/∂x̂ = 0",
                                    "; sample {i}: ∂critic/∂x̂ = 0", i=", ".join(map(str, dead)))
    names = critics.parameter_names(drawn.recipe)
    frozen = ", ".join(names[i] for i in drawn.frozen)
    state = both("{f}{m}", "{f_en}{m_en}",
                 f=f"; dibekukan: {frozen}" if frozen else "",
                 f_en=f"; frozen: {frozen}" if frozen else "",
                 m="" if drawn.training else "; mode eval",
                 m_en="" if drawn.training else "; eval mode")
    shape = tuple(ctx.inputs["real"].shape)
    return both("{t} Critic: {c}, dipanggil pada x̂ ber-shape {x}{s}{d}.",
                "{t} Critic: {c}, called on x̂ of shape {x}{s}{d}.", t=text,
                c=drawn.recipe.describe(), x=shape, s=state, d=dead)


class CriticKind(Kind):
    """Shared by the penalty kinds: arguments, the critic strategy, and the probe request."""

    watches_args = False  # critic_side_effects judges the arguments, with the critic's own facts

    OPTIONS = {"activations": list, "dead_sample": bool, "default_lam": float,
               "rtol": float, "atol": float}
    param_grads = False
    preset_grads = False

    def validate(self, check):
        super().validate(check)
        names = [a.name for a in check.args]
        if tuple(names[:3]) != ARGS or names[3:] not in ([], ["lam"]):
            raise check.node.error("args", "expected args real, fake, alpha and optionally lam, "
                                           f"in that order (the critic comes first); got {names}")
        real, fake, alpha = (check.arg(n) for n in ARGS)
        if not all(isinstance(a, TensorArg) for a in (real, fake, alpha)):
            raise check.node.error("args", "real, fake and alpha must be tensors")
        if not (isinstance(real.shape, tuple) and len(real.shape) in (2, 4)):
            raise check.node.error("args", "real needs a shape such as [N, D] (an MLP critic) "
                                           "or [N, C, H, W] (a CNN critic)")
        if fake.like != "real" and fake.shape != real.shape:
            raise check.node.error("args", "fake needs real's shape (`like: real`)")
        if alpha.shape != real.shape[:1]:
            raise check.node.error("args", f"alpha needs the shape [{real.shape[0]}] (one per "
                                           "sample)")
        if "lam" in names:
            if not isinstance(check.arg("lam"), FloatArg):
                raise check.node.error("args", "lam must be a float, e.g. {float: [0.5, 20]}")
        elif "default_lam" not in check.options:
            raise check.node.error("args", "without a lam argument, give `default_lam:` (the "
                                           "value the function's default must have)")
        for a in check.options.get("activations", ()):
            if a not in critics.ACTIVATIONS:
                raise check.node.error("activations", f"unknown activation {a!r}; known: "
                                                      f"{', '.join(critics.ACTIVATIONS)}")

    def strategy(self, exercise, check):
        return _draw(exercise, check, self.preset_grads)

    def frame(self, ctx, verdict):
        m = verdict.message
        ended = Text(id=m.id if m.id.endswith(".") else m.id + ".",
                     en=m.en if m.en.endswith(".") else m.en + ".")
        hint = verdict.hint
        if verdict.status == "error":  # the code raised: a hint about the check would mislead
            hint = both("Kodemu melempar exception dengan critic dan input ini. Buat critic "
                        "seperti yang dijelaskan (lapisan, shape x̂) dengan input dari contoh "
                        "gagal, jalankan fungsimu, dan baca baris traceback-mu: biasanya shape "
                        "alpha atau keluaran critic yang tidak cocok.",
                        "Your code raised with this critic and these inputs. Build a critic "
                        "as described (layers, x̂'s shape) with the failing example's inputs, "
                        "run your function, and read your traceback's lines: usually alpha's "
                        "shape or the critic's output shape does not fit.")
        return Verdict(verdict.status, _critic_text(ctx, ended), verdict.traceback, hint)

    def request(self, check, inputs, enc):
        drawn: DrawnCritic = inputs["critic"]
        req = dict(super().request(check, inputs, enc))
        preset = enc.value(list(drawn.preset_grads)) if drawn.preset_grads is not None else None
        req.update(op="critic_call", param_grads=self.param_grads, critic={
            "recipe": drawn.recipe.to_dict(), "weights": enc.value(list(drawn.weights)),
            "preset_grads": preset, "frozen": list(drawn.frozen), "training": drawn.training})
        return req


@st.composite
def _draw(draw, exercise, check, preset: bool) -> dict:
    inputs = draw(strategies.inputs(exercise, check))
    real = inputs["real"]
    dead = bool(check.options.get("dead_sample"))
    acts = ["relu"] if dead else list(check.options.get("activations") or critics.ACTIVATIONS)
    act = draw(st.sampled_from(acts))
    flat = draw(st.booleans())
    if real.dim() == 2:
        widths = draw(st.lists(st.integers(2, 6), min_size=1, max_size=2))
        recipe = critics.Recipe("mlp", act, tuple(real.shape[1:]), tuple(widths),
                                flat_output=flat)
    else:
        widths = draw(st.lists(st.integers(1, 3), min_size=1, max_size=2))
        recipe = critics.Recipe("cnn", act, tuple(real.shape[1:]), tuple(widths),
                                kernel=draw(st.sampled_from([3, 2, 1])), flat_output=flat)
    seed = draw(st.integers(0, 2**31 - 1))
    weights = critics.init_weights(recipe, seed, real.dtype)
    drawn = DrawnCritic(recipe, weights)
    if dead:
        drawn.dead = draw(st.integers(0, real.shape[0] - 1))
        from .teacher import interpolate

        x_hat = interpolate(real, inputs["fake"], inputs["alpha"])
        drawn.weights = critics.kill_sample(recipe, weights, x_hat[drawn.dead],
                                            draw(st.floats(0.1, 0.5)))
    if preset and draw(st.booleans()):
        gen = torch.Generator().manual_seed(seed + 1)
        drawn.preset_grads = [torch.randn(w.shape, generator=gen, dtype=w.dtype)
                              for w in weights]
    if preset:  # the side-effect checks: a caller may freeze layers, or keep the critic in eval
        if draw(st.booleans()):
            drawn.frozen = tuple(i for i in range(len(weights)) if draw(st.booleans()))
        drawn.training = draw(st.booleans())
    inputs["critic"] = drawn
    return inputs


class CriticPenalty(CriticKind):
    """The returned penalty is a scalar tensor equal to the reference."""

    name = "critic_penalty"

    def prepare(self, ctx):
        _suspects(ctx, _reference(ctx))

    def candidates(self, ctx, reply, values):
        out = _first_out(values)
        if out is _MISSING or not isinstance(out, TensorFacts) or out.data.numel() != 1:
            return None
        return set(matching(ctx, _reference(ctx), float(out.data)))

    def judge(self, ctx, reply, values):
        ref = _reference(ctx)
        out = _first_out(values)
        if out is _MISSING:
            return _malformed(ctx)
        found = compare(out, ref.value, tolerances=ctx.tolerances)
        if not found:
            return None
        text = _not_a_tensor(mismatch(found, ctx.check.function), found, out)
        mistake = hint = None
        if found.kind == "value":
            said = diagnose(ctx, ref, float(out.data))
            if said is not None:
                text = both("{t} {h}", "{t} {h}", t=text, h=said)
            mistake = named(ctx, ref, float(out.data))
            hint = fix(ctx, ref, float(out.data))
        return Verdict("failed", _critic_text(ctx, text, ref), hint=hint, mistake=mistake)


def _not_a_tensor(text: Text, found, out) -> Text:
    if found.kind == "type" and isinstance(out, (int, float)):
        return both("{t} Jangan memanggil .item() atau float(): penalty harus tetap tensor agar "
                    "bisa di-backward.", "{t} Do not call .item() or float(): the penalty must "
                    "stay a tensor, so that it can be backpropagated.", t=text)
    return text


SQRT_AT_ZERO = both(
    "Turunan sqrt di 0 tak hingga, sehingga torch.sqrt((g**2).sum(...)) memberi 0·inf = NaN. "
    "g.norm(2, dim=1) dan torch.linalg.vector_norm punya backward 0 di sana.",
    "sqrt has an infinite derivative at 0, so torch.sqrt((g**2).sum(...)) gives 0·inf = NaN. "
    "g.norm(2, dim=1) and torch.linalg.vector_norm have a backward of 0 there.")
"""The hint (kept back by the feedback level) where a sample's input gradient is zero."""


class CriticParamGrads(CriticKind):
    """The penalty carries a graph to the critic's parameters, and its gradients with respect to
    them equal the reference's (finite wherever the reference's are)."""

    name = "critic_param_grads"
    param_grads = True

    def prepare(self, ctx):
        _reference(ctx)

    def judge(self, ctx, reply, values):
        fn = ctx.check.function
        ref = _reference(ctx)
        out = _first_out(values)
        if out is _MISSING:
            return _malformed(ctx)
        found = compare(out, ref.value, values=False)
        if found:
            return Verdict("failed", _critic_text(ctx, _not_a_tensor(mismatch(found, fn), found,
                                                                     out)))
        grads = values["grads"]
        if not out.requires_grad or grads is None:
            return Verdict("failed", _critic_text(ctx, both(
                "Hasil {fn} tidak requires_grad, jadi tidak terhubung ke parameter critic dan "
                "tidak bisa melatihnya.",
                "The result of {fn} does not require grad, so it has no graph to the critic's "
                "parameters and cannot train them.", fn=fn)), hint=both(
                "Hitung gradien input dengan torch.autograd.grad(..., create_graph=True), dan "
                "jangan detach() atau .item() hasilnya.",
                "Take the input gradient with torch.autograd.grad(..., create_graph=True), and "
                "do not detach() the result or call .item()."))
        names = critics.parameter_names(ctx.inputs["critic"].recipe)
        if not _items(grads, len(names), TensorFacts):
            return _malformed(ctx)
        if all(g is None for g in grads) and any(bool(w.any()) for w in ref.grads):
            return Verdict("failed", _critic_text(ctx, both(
                "Hasil {fn} tidak bergantung pada parameter critic mana pun (graf terputus).",
                "The result of {fn} depends on none of the critic's parameters (the graph is "
                "cut).", fn=fn)), hint=both(
                "Gunakan create_graph=True pada torch.autograd.grad.",
                "Use create_graph=True in torch.autograd.grad."))
        for name, got, want in zip(names, grads, ref.grads):
            if got is None:
                got = TensorFacts(torch.zeros_like(want))
            found = compare(got, want, tolerances=ctx.tolerances, where=f"∂penalty/∂{name}")
            if found:
                dead = found.kind == "nonfinite" and _dead(ctx, ref)
                return Verdict("failed", _critic_text(ctx, self._explain(ctx, ref, found, out),
                                                      ref), hint=SQRT_AT_ZERO if dead else None)
        return None

    def _explain(self, ctx, ref, found, out) -> Text:
        text = mismatch(found, ctx.check.function)
        dead = _dead(ctx, ref)
        if found.kind == "nonfinite" and dead:
            return both(
                "{t} Untuk sampel {i} gradien input critic tepat nol (semua unit ReLU mati): "
                "periksa backward norm-mu di vektor nol.",
                "{t} For sample {i} the critic's input gradient is exactly zero (every ReLU "
                "unit is off): check your norm's backward at the zero vector.",
                t=text, i=", ".join(map(str, dead)))
        if compare(out, ref.value, tolerances=ctx.tolerances):
            return both("{t} Nilai penalty-nya sendiri juga sudah berbeda; perbaiki nilainya "
                        "dulu (lihat pemeriksaan nilai).", "{t} The penalty's value already "
                        "differs too; fix the value first (see the value checks).", t=text)
        return text


class CriticSideEffects(CriticKind):
    """The call leaves real, fake, alpha, the critic's parameters and their .grad as they were."""

    name = "critic_side_effects"
    preset_grads = True
    constraint = True

    def judge(self, ctx, reply, values):
        if not isinstance(values.get("args_after"), list):
            return _malformed(ctx)
        verdict = InputsUntouched().judge(ctx, reply, values)
        if verdict is not None:
            return Verdict(verdict.status, _critic_text(ctx, verdict.message), cause=verdict.cause)
        fn, drawn, data = ctx.check.function, ctx.inputs["critic"], values.get("data")
        names = critics.parameter_names(drawn.recipe)
        n = len(names)
        if not (isinstance(data, dict) and _items(data.get("grads_after"), n, TensorFacts)
                and _items(data.get("params_after"), n, TensorFacts)
                and None not in data["params_after"]
                and _items(data.get("params_requires_grad"), n, bool)):
            return _malformed(ctx)
        presets = drawn.preset_grads or [None] * len(names)
        modes = data.get("training_after")
        if isinstance(modes, list) and any(m is not drawn.training for m in modes):
            return self._fail(ctx, both(
                "{fn} mengubah mode critic (critic.{m}() tanpa mengembalikannya): pemanggil "
                "menyerahkannya dalam mode {was}. Jangan mengubah mode critic, atau kembalikan "
                "seperti semula.",
                "{fn} changed the critic's mode (critic.{m}() without restoring it): the "
                "caller handed it over in {was} mode. Leave the mode alone, or restore it.",
                fn=fn, m="train" if not drawn.training else "eval",
                was="train" if drawn.training else "eval"))
        rows = zip(names, drawn.weights, presets, data["params_after"], data["grads_after"],
                   data["params_requires_grad"], range(n))
        for name, sent, preset, after, grad, tracked, i in rows:
            if not torch.equal(after.data, sent):
                return self._fail(ctx, both(
                    "{fn} mengubah nilai parameter critic `{p}` (in-place). Bobot critic milik "
                    "pemanggil: jangan clipping atau optimizer.step() di sini.",
                    "{fn} changed the critic's parameter `{p}` (in place). The critic's "
                    "weights belong to the caller: no clipping or optimizer.step() here.",
                    fn=fn, p=name))
            if tracked is not (i not in drawn.frozen):
                if tracked:
                    return self._fail(ctx, both(
                        "{fn} menyalakan requires_grad pada parameter critic `{p}`, yang "
                        "dibekukan pemanggil (requires_grad=False). Jangan mengubah "
                        "requires_grad parameter critic.",
                        "{fn} switched on requires_grad of the critic's parameter `{p}`, which "
                        "the caller froze (requires_grad=False). Leave the parameters' "
                        "requires_grad as they are.", fn=fn, p=name))
                return self._fail(ctx, both(
                    "{fn} mematikan requires_grad pada parameter critic `{p}`.",
                    "{fn} switched off requires_grad of the critic's parameter `{p}`.",
                    fn=fn, p=name))
            if preset is None and grad is not None:
                return self._fail(ctx, both(
                    "{fn} menulis .grad pada parameter critic `{p}` (ada .backward() di "
                    "dalamnya?). Gunakan torch.autograd.grad, yang mengembalikan gradien tanpa "
                    "menulis .grad; pemanggil yang memutuskan kapan backward.",
                    "{fn} wrote .grad on the critic's parameter `{p}` (a .backward() inside?). "
                    "Use torch.autograd.grad, which returns the gradient without writing "
                    ".grad; the caller decides when to backpropagate.", fn=fn, p=name))
            if preset is not None and (grad is None or not torch.equal(grad.data, preset)):
                now = "None" if grad is None else both("berubah", "changed")
                return self._fail(ctx, both(
                    ".grad yang sudah ada pada parameter critic `{p}` menjadi {n} setelah {fn}: "
                    "backward() menambahinya dan zero_grad() menghapusnya, padahal itu gradien "
                    "milik pemanggil (misalnya dari loss critic). Gunakan torch.autograd.grad.",
                    "The .grad the caller had on the critic's parameter `{p}` is {n} after "
                    "{fn}: backward() adds to it and zero_grad() wipes it, yet it holds the "
                    "caller's gradients (from the critic loss, say). Use torch.autograd.grad.",
                    fn=fn, p=name, n=now))
        return None

    def _fail(self, ctx, text: Text) -> Verdict:
        # What grader.checks.effects names every change to a caller's object (principle
        # caller_objects): this kind observes it here, with the critic's own facts.
        return Verdict("failed", _critic_text(ctx, text), cause=f"caller:{ctx.check.function}")


KINDS = [CriticPenalty(), CriticParamGrads(), CriticSideEffects()]
DATA = [critics.Recipe, DrawnCritic, Reference]
