"""The inputs_untouched kind: a call leaves the caller's tensors and their flags as they were."""

from __future__ import annotations

import torch

from grader.checks.base import Judging, Kind, Verdict
from grader.checks.messages import both
from grader.common.wire import TensorFacts
from grader.specs.model import TensorArg


class InputsUntouched(Kind):
    name = "inputs_untouched"
    constraint = True

    def judge(self, ctx: Judging, reply, values):
        fn = ctx.check.function
        for arg, after in zip(ctx.check.args, values["args_after"]):
            if not isinstance(arg, TensorArg) or not isinstance(after, TensorFacts):
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
            if after.requires_grad != arg.requires_grad:
                return Verdict(
                    "failed",
                    both(
                        "{fn} mengubah requires_grad pada input `{a}` milik pemanggil (menjadi {v}). "
                        "Buat leaf baru, misalnya x.detach().requires_grad_(), bukan menandai tensor "
                        "pemanggil.",
                        "{fn} changed requires_grad of the caller's input `{a}` (to {v}). Make a new "
                        "leaf, e.g. x.detach().requires_grad_(), instead of marking the caller's "
                        "tensor.",
                        fn=fn,
                        a=arg.name,
                        v=after.requires_grad,
                    ),
                )
            if after.has_grad:
                return Verdict(
                    "failed",
                    both(
                        "{fn} meninggalkan .grad pada input `{a}` milik pemanggil.",
                        "{fn} left a .grad on the caller's input `{a}`.",
                        fn=fn,
                        a=arg.name,
                    ),
                )
        return None


KINDS = [InputsUntouched()]
