"""Side effects, judged by default for every call of a student's function: what it did to the
caller's objects (its tensor arguments; a scenario's objects, see sandbox.probes.effects) and to
the process's global modes (grad mode, anomaly detection, the default dtype, inference mode,
deterministic algorithms). A check's `may_change:` names what its function may change; the
reference's own run says what a scenario's function changes.

The inputs_untouched kind names the first of these as a check of its own, with its points."""

from __future__ import annotations

import torch

from grader.checks.base import Judging, Kind, Verdict
from grader.checks.messages import both
from grader.common.wire import TensorFacts
from grader.specs.model import TensorArg, Text
from grader.specs.strategies import STATE

MODES_CAUSE = "modes"
"""The cause of a verdict on a global mode left changed (rule global_modes)."""
CALLER_CAUSE = "caller"
"""The cause of a verdict on a caller's object changed (rule caller_objects)."""

MODE_NAMES = {
    "grad_mode": ("mode gradien (torch.is_grad_enabled())", "grad mode (torch.is_grad_enabled())"),
    "anomaly_detection": ("anomaly detection", "anomaly detection"),
    "default_dtype": (
        "dtype bawaan (torch.get_default_dtype())",
        "the default dtype (torch.get_default_dtype())",
    ),
    "inference_mode": ("inference mode", "inference mode"),
    "deterministic_algorithms": (
        "torch.use_deterministic_algorithms",
        "torch.use_deterministic_algorithms",
    ),
}


def after_call(ctx: Judging, kind, reply: dict, values: dict) -> Verdict | None:
    """The default verdict on what a passing example's call left behind."""
    left = reply.get("modes_changed")
    if isinstance(left, list) and left:
        names = [str(n)[:40] for n in left][:5]
        return Verdict(
            "failed",
            modes_left(ctx.check.function, names),
            cause=f"{MODES_CAUSE}:{','.join(names)}:{ctx.check.function}",
        )
    if kind.watches_args and isinstance(values.get("args_after"), list):
        return untouched_args(ctx, values)
    return None


NEW_LEAF = both(
    "Hitung pada leaf baru, misalnya x.detach().clone().requires_grad_(True), atau pakai "
    "torch.autograd.grad, yang tidak menulis .grad.",
    "Work on a new leaf, such as x.detach().clone().requires_grad_(True), or use "
    "torch.autograd.grad, which writes no .grad.",
)
"""The hint (kept back by the feedback level) where a function marked or wrote the caller's x."""


def modes_left(fn, names: list[str]) -> Text:
    def say(lang):
        i = 0 if lang == "id" else 1
        return ", ".join(MODE_NAMES.get(n, (n, n))[i] for n in names)

    return both(
        "{fn} mengubah setelan global {m} dan tidak mengembalikannya: kode pemanggil sesudahnya "
        "ikut berjalan dengan setelan itu. Gunakan blok `with` (with torch.no_grad():, with "
        "torch.autograd.detect_anomaly():) yang memulihkan setelan semula saat keluar.",
        "{fn} changed the global setting {m} and did not restore it: the caller's code after it "
        "runs with that setting too. Use a `with` block (with torch.no_grad():, with "
        "torch.autograd.detect_anomaly():), which restores the previous setting on exit.",
        fn=fn,
        m=Text(id=say("id"), en=say("en")),
    )


def untouched_args(ctx: Judging, values: dict) -> Verdict | None:
    """The caller's tensor arguments after the call: same values, not written in place, the same
    requires_grad, no .grad and no hook left on them; except those the check's `may_change:`
    names."""
    verdict = _args_changed(ctx, values)
    if verdict is not None:
        verdict.cause = f"{CALLER_CAUSE}:{ctx.check.function}"
    return verdict


def _args_changed(ctx: Judging, values: dict) -> Verdict | None:
    fn = ctx.check.function
    free = set(ctx.check.may_change)
    for arg, after in zip(ctx.check.args, values["args_after"]):
        if not isinstance(arg, TensorArg) or not isinstance(after, TensorFacts):
            continue
        if arg.name in free:
            continue
        sent = ctx.inputs[arg.name]
        data = after.data
        same = (
            data.shape == sent.shape
            and data.dtype == sent.dtype
            and bool(
                torch.equal(data, sent)
                or (torch.isnan(data) == torch.isnan(sent)).all()
                and torch.equal(torch.nan_to_num(data), torch.nan_to_num(sent))
            )
        )
        if not same:
            return Verdict(
                "failed",
                both(
                    "{fn} mengubah isi input `{a}` (operasi in-place pada tensor pemanggil). "
                    "Gunakan salinan (clone) atau operasi yang tidak in-place.",
                    "{fn} changed the contents of its input `{a}` (an in-place operation on the "
                    "caller's tensor). Work on a copy (clone) or use out-of-place operations.",
                    fn=fn,
                    a=arg.name,
                ),
            )
        if after.extra.get("x_in_place") is True:
            return Verdict(
                "failed",
                both(
                    "{fn} menulis ke input `{a}` secara in-place (penghitung versi tensor "
                    "berubah, walaupun nilainya akhirnya sama). Tensor yang disimpan autograd "
                    "untuk backward menjadi tidak sah; jangan menulis ke tensor pemanggil sama "
                    "sekali.",
                    "{fn} wrote into its input `{a}` in place (the tensor's version counter "
                    "moved, even though its values end as they were). Tensors autograd saved "
                    "for backward are invalidated by that; do not write into the caller's "
                    "tensor at all.",
                    fn=fn,
                    a=arg.name,
                ),
            )
        before = after.extra.get("x_requires_grad_before", arg.requires_grad)
        if after.requires_grad != before:
            return Verdict(
                "failed",
                both(
                    "{fn} mengubah requires_grad pada input `{a}` milik pemanggil (menjadi "
                    "{v}); tensor pemanggil tidak boleh ditandai.",
                    "{fn} changed requires_grad of the caller's input `{a}` (to {v}); the "
                    "caller's tensor is not to be marked.",
                    fn=fn,
                    a=arg.name,
                    v=after.requires_grad,
                ),
                hint=NEW_LEAF,
            )
        if arg.name in ctx.inputs.get(STATE, {}):
            if not (after.has_grad and after.extra.get("x_grad_kept") is True):
                return Verdict(
                    "failed",
                    both(
                        "{fn} mengubah .grad lama pada input `{a}` milik pemanggil (tensor yang "
                        "sudah requires_grad dan punya .grad): backward() menjumlahkan gradien ke sana, "
                        "dan zero_() atau grad = None menghapusnya. Hitung pada leaf baru milikmu "
                        "sendiri, yang terputus dari graf pemanggil.",
                        "{fn} changed the old .grad of the caller's input `{a}` (a tensor that "
                        "already requires grad and holds a .grad): backward() adds into it, and "
                        "zero_() or grad = None wipes it. Work on a new leaf of your own, cut "
                        "off from the caller's graph.",
                        fn=fn,
                        a=arg.name,
                    ),
                )
        elif after.has_grad:
            return Verdict(
                "failed",
                both(
                    "{fn} meninggalkan .grad pada input `{a}` milik pemanggil.",
                    "{fn} left a .grad on the caller's input `{a}`.",
                    fn=fn,
                    a=arg.name,
                ),
            )
        if after.extra.get("x_hook_left") is True:
            return Verdict(
                "failed",
                both(
                    "{fn} meninggalkan hook pada input `{a}` milik pemanggil (register_hook): "
                    "hook itu ikut berjalan di setiap backward pemanggil. Hapus lewat handle "
                    "yang dikembalikan register_hook (handle.remove()) sebelum kembali.",
                    "{fn} left a hook on the caller's input `{a}` (register_hook): it runs in "
                    "every later backward of the caller's. Remove it through the handle "
                    "register_hook returns (handle.remove()) before returning.",
                    fn=fn,
                    a=arg.name,
                ),
            )
    return None


def scenario_changes(ctx: Judging, got, want) -> Verdict | None:
    """The first change the student's call made to a setup object that the reference's run of
    the same scenario does not make (sandbox.probes.effects), outside `may_change:`."""
    if not isinstance(got, dict) or not isinstance(want, dict):
        return None
    for path, found in got.items():
        if not isinstance(found, list) or _free(str(path), ctx.check.may_change):
            continue
        allowed = set(want.get(path, []) or [])
        if "value" in allowed:
            allowed.add("in_place")
        for change in found:
            if change not in allowed:
                fn = ctx.check.function
                return Verdict(
                    "failed",
                    changed(fn, str(path)[:120], str(change)),
                    cause=f"{CALLER_CAUSE}:{fn}",
                )
    return None


def _free(path: str, names) -> bool:
    return any(path == n or path.startswith((n + ".", n + "[")) for n in names)


CHANGES = {
    "value": (
        "{fn} mengubah nilai `{p}` milik pemanggil, padahal referensi membiarkannya apa adanya. "
        "Jangan menulis ke tensor pemanggil: kerjakan pada salinan (clone) atau dengan operasi "
        "yang tidak in-place.",
        "{fn} changed the values of the caller's `{p}`, which the reference leaves as it was. "
        "Do not write into the caller's tensors: work on a copy (clone) or with out-of-place "
        "operations.",
    ),
    "in_place": (
        "{fn} menulis ke `{p}` milik pemanggil secara in-place (penghitung versinya berubah, "
        "walaupun nilainya akhirnya sama). Tensor yang disimpan autograd untuk backward menjadi "
        "tidak sah; jangan menulis ke tensor itu sama sekali.",
        "{fn} wrote into the caller's `{p}` in place (its version counter moved, even though "
        "its values end as they were). Tensors autograd saved for backward are invalidated by "
        "that; do not write into that tensor at all.",
    ),
    "requires_grad": (
        "{fn} mengubah requires_grad pada `{p}` milik pemanggil, padahal seharusnya tetap "
        "seperti yang diatur pemanggil.",
        "{fn} changed requires_grad of the caller's `{p}`, which should stay as the caller set "
        "it.",
    ),
    "grad": (
        "{fn} mengubah `{p}.grad` (mengisi, menghapus, me-nol-kan atau menggantinya), padahal "
        "referensi membiarkannya apa adanya: .grad milik pemanggil bukan urusan fungsi ini.",
        "{fn} changed `{p}.grad` (set, removed, zeroed or replaced it), which the reference "
        "leaves as it was: the caller's .grad is not this function's business.",
    ),
    "replaced": (
        "Setelah {fn}, `{p}` berisi objek lain, bukan tensor milik pemanggil: fungsimu "
        "memasukkan tensor baru menggantikan yang lama. Perbarui tensor pemanggil di tempat "
        "(di dalam torch.no_grad(): t.mul_(...), t.copy_(...)), jangan menggantinya.",
        "After {fn}, `{p}` holds other objects than the caller's tensors: your function put new "
        "tensors in place of the old ones. Update the caller's tensors in place (inside "
        "torch.no_grad(): t.mul_(...), t.copy_(...)) instead of replacing them.",
    ),
    "hook": (
        "{fn} meninggalkan hook (register_hook, register_forward_hook, ...) pada `{p}` milik "
        "pemanggil; hook itu berjalan lagi di setiap forward atau backward berikutnya. Simpan "
        "handle-nya dan panggil handle.remove() sebelum kembali.",
        "{fn} left a hook (register_hook, register_forward_hook, ...) on the caller's `{p}`; it "
        "runs again on every later forward or backward. Keep its handle and call "
        "handle.remove() before returning.",
    ),
    "training": (
        "{fn} mengganti mode train/eval `{p}` (model.train() / model.eval()) dan tidak "
        "mengembalikannya; biarkan mode model seperti yang diatur pemanggil.",
        "{fn} switched `{p}` between train and eval mode (model.train() / model.eval()) and "
        "left it so; leave the model's mode as the caller set it.",
    ),
}


def changed(fn, path: str, change: str) -> Text:
    ind, en = CHANGES.get(change, CHANGES["value"])
    return both(ind, en, fn=fn, p=path)


class InputsUntouched(Kind):
    """A call leaves the caller's tensors and their flags as they were (judged by default for
    every check too; this kind gives the property its own points)."""

    name = "inputs_untouched"
    constraint = True
    starting_states = True

    def judge(self, ctx: Judging, reply, values):
        return untouched_args(ctx, values)


KINDS = [InputsUntouched()]
