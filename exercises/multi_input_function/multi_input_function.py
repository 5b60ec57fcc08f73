"""Custom Function dengan beberapa input / A custom Function with several inputs.

ID: Bagian "Custom Autograd Function": seperti MyReLU, tetapi forward punya tiga input (x, w,
    scale). backward mengembalikan satu gradien per input: None untuk input yang tidak butuh
    gradien (ctx.needs_input_grad) dan untuk scale (float).
    Jalankan `python -m grader check multi_input_function` untuk menilai jawabanmu.
EN: The "Custom Autograd Function" section: like MyReLU, but forward has three inputs (x, w,
    scale). backward returns one gradient per input: None for inputs that need no gradient
    (ctx.needs_input_grad) and for scale (a float).
    Run `python -m grader check multi_input_function` to grade your answer.

Contoh pemakaian / usage:

    x = torch.randn(3); w = torch.randn(3, requires_grad=True)
    y = scaled_mul(x, w, 2.0)        # x · w · 2
    y.sum().backward()
    w.grad                           # 2·x; x needs no gradient, so backward gives None for it
"""

import torch


class ScaledMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, scale):
        """ID: x · w · scale; simpan x dan w dengan ctx.save_for_backward, scale di ctx.
        EN: x · w · scale; save x and w with ctx.save_for_backward, scale on ctx.
        """
        raise NotImplementedError("ScaledMul.forward belum diimplementasikan / "
                                  "ScaledMul.forward is not implemented yet")

    @staticmethod
    def backward(ctx, grad_output):
        """ID: (grad_x atau None, grad_w atau None, None), sesuai ctx.needs_input_grad.
        EN: (grad_x or None, grad_w or None, None), following ctx.needs_input_grad.
        """
        raise NotImplementedError("ScaledMul.backward belum diimplementasikan / "
                                  "ScaledMul.backward is not implemented yet")


def scaled_mul(x, w, scale):
    return ScaledMul.apply(x, w, scale)
