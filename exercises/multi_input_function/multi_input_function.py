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

Aturan yang dinilai / Rules that are graded:
- ID: backward mengembalikan satu gradien per input forward, sesuai urutannya.
  EN: backward returns one gradient per forward input, in order.
- ID: Masing-masing hanya jika ctx.needs_input_grad menyatakan input itu butuh gradien; jika
      tidak, None.
  EN: Each only if ctx.needs_input_grad says that input needs a gradient; otherwise None.
- ID: Jangan menghitung yang tidak perlu: gradien yang tidak diminta ctx.needs_input_grad tidak
      dihitung sama sekali.
  EN: Do not compute what is not needed: a gradient ctx.needs_input_grad does not ask for is not
      computed at all.
- ID: None untuk scale, karena float bukan tensor.
  EN: None for scale, since a float is not a tensor.
- ID: Simpan tensor untuk backward dengan ctx.save_for_backward (scale boleh disimpan sebagai
      atribut ctx).
  EN: Save tensors for backward with ctx.save_for_backward (scale may be kept as a ctx
      attribute).
- ID: Nama kelas ScaledMul tetap (grad_fn hasilnya ScaledMulBackward).
  EN: Keep the class name ScaledMul (the result's grad_fn is ScaledMulBackward).
- ID: scaled_mul(x, w, scale) memanggil ScaledMul.apply.
  EN: scaled_mul(x, w, scale) calls ScaledMul.apply.
- ID: Setiap pemanggilan membiarkan objek pemanggil (tensor, .grad dan flag-nya, modul) dan mode
      global (grad mode, anomaly detection, dtype bawaan) seperti semula, kecuali yang memang
      diminta untuk diubah.
  EN: Every call leaves the caller's objects (tensors, their .grad and flags, modules) and the
      global modes (grad mode, anomaly detection, the default dtype) as it found them, except
      what it is asked to change.
- ID: Argumen tensor bisa datang contiguous, transposed atau strided.
  EN: Tensor arguments may arrive contiguous, transposed or strided.
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
