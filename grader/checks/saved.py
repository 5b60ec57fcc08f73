"""The saved_tensors kind: a custom autograd.Function keeps what backward needs the course's way.

Judged from the graph facts the call probe reports about the output's grad_fn: that it is the
node of an autograd.Function (so autograd calls the student's backward), that tensors were saved
with ctx.save_for_backward (grad_fn.saved_tensors), and that none are stashed as ctx attributes.
"""

from __future__ import annotations

from grader.checks.base import Judging, Kind, Verdict
from grader.checks.messages import both
from grader.specs.model import TensorArg


class SavedTensors(Kind):
    """Tensors backward needs are saved with ctx.save_for_backward, not stashed on ctx."""

    name = "saved_tensors"
    constraint = True
    OPTIONS = {"min_saved": int}

    def validate(self, check):
        super().validate(check)
        if not any(isinstance(a, TensorArg) and a.requires_grad for a in check.args):
            raise check.node.error(
                "args",
                f"checks of kind {self.name} need a tensor argument "
                "with `requires_grad: true` (else there is no grad_fn)",
            )

    def request(self, check, inputs, enc):
        return dict(super().request(check, inputs, enc), graph=True)

    def judge(self, ctx: Judging, reply, values):
        fn = ctx.check.function
        facts = values.get("graph") or {}
        node = facts.get("grad_fn")
        if not isinstance(node, str):
            return Verdict(
                "failed",
                both(
                    "{fn}(...) mengembalikan tensor tanpa grad_fn walaupun inputnya requires_grad: "
                    "autograd tidak akan memanggil backward-mu. Kembalikan hasil .apply(...) dari "
                    "autograd.Function-mu (bukan forward(...) langsung, dan tanpa .detach()).",
                    "{fn}(...) returns a tensor without grad_fn although its input requires grad: "
                    "autograd will never call your backward. Return the result of your "
                    "autograd.Function's .apply(...) (not forward(...) called directly, and no "
                    ".detach()).",
                    fn=fn,
                ),
            )
        if facts.get("custom") is not True:  # missing or malformed facts never pass
            return Verdict(
                "failed",
                both(
                    "grad_fn dari hasil {fn}(...) adalah {n}, node bawaan torch: hasilnya dibuat "
                    "dengan operasi torch biasa, jadi backward-mu tidak pernah dipakai. Kembalikan "
                    "hasil .apply(...) dari autograd.Function-mu.",
                    "The grad_fn of {fn}(...)'s result is {n}, one of torch's own nodes: the result "
                    "comes from ordinary torch operations, so your backward is never used. Return "
                    "the result of your autograd.Function's .apply(...).",
                    fn=fn,
                    n=node[:100],
                ),
            )
        stashed = facts.get("ctx_tensors", ["?"])
        stashed = [str(n)[:50] for n in stashed][:10] if isinstance(stashed, list) else ["?"]
        if stashed:
            return Verdict(
                "failed",
                both(
                    "Tensor disimpan sebagai atribut ctx ({a}). Simpan dengan "
                    "ctx.save_for_backward(...) dan ambil kembali dengan ctx.saved_tensors: dengan "
                    "begitu autograd bisa mendeteksi jika tensor itu diubah in-place sebelum "
                    "backward, dan membebaskan memorinya setelah backward.",
                    "Tensors are stashed as ctx attributes ({a}). Save them with "
                    "ctx.save_for_backward(...) and read them back with ctx.saved_tensors: that way "
                    "autograd can detect in-place changes to them before backward, and frees their "
                    "memory after backward.",
                    a=", ".join(f"ctx.{n}" for n in stashed),
                ),
            )
        saved = facts.get("saved_tensors")
        need = int(ctx.check.options.get("min_saved", 1))
        if saved is None:
            return Verdict(
                "failed",
                both(
                    "grad_fn.saved_tensors dari hasil {fn}(...) tidak bisa dibaca: tensor yang "
                    "disimpan diubah in-place setelah ctx.save_for_backward(...).",
                    "grad_fn.saved_tensors of {fn}(...)'s result cannot be read: a saved tensor was "
                    "changed in place after ctx.save_for_backward(...).",
                    fn=fn,
                ),
            )
        if not isinstance(saved, int) or saved < need:
            return Verdict(
                "failed",
                both(
                    "forward menyimpan {s} tensor dengan ctx.save_for_backward, padahal backward "
                    "butuh setidaknya {k} (input atau output). Simpan di forward dengan "
                    "ctx.save_for_backward(...).",
                    "forward saved {s} tensor(s) with ctx.save_for_backward, while backward needs "
                    "at least {k} (the input or the output). Save it in forward with "
                    "ctx.save_for_backward(...).",
                    s=saved,
                    k=need,
                ),
            )
        return None


KINDS = [SavedTensors()]
