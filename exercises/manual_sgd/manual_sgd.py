"""Langkah SGD manual di bawah no_grad / A manual SGD step under no_grad.

ID: Topik requires_grad, bagian "Kesalahan umum": operasi in-place pada leaf yang requires_grad
    ditolak autograd, kecuali di dalam torch.no_grad(). Bagian Gradient Accumulation: .grad
    terakumulasi, jadi kosongkan setelah tiap langkah.
    Jalankan `python -m grader check manual_sgd` untuk menilai jawabanmu.
EN: The requires_grad topic, section "Kesalahan umum" (common mistakes): an in-place operation on
    a leaf that requires grad is refused by autograd, except inside torch.no_grad(). The
    Gradient Accumulation section: .grad accumulates, so clear it after each step.
    Run `python -m grader check manual_sgd` to grade your answer.

Contoh pemakaian / usage:

    w = torch.randn(3, requires_grad=True)
    (w ** 2).sum().backward()
    sgd_step([w], lr=0.1)   # w berubah di tempat / w changes in place; w.grad kosong / cleared

Dilarang (di sgd_step), alias privatnya (torch._...) juga /
Forbidden (in sgd_step), their private aliases (torch._...) too:
    torch.optim.

Aturan yang dinilai / Rules that are graded:
- ID: Parameter tanpa .grad dilewati.
  EN: Parameters without a .grad are skipped.
- ID: Setelah pembaruan, kosongkan gradiennya (p.grad = None, atau nol).
  EN: After the update, clear its gradient (p.grad = None, or zeros).
- ID: torch.optim dilarang.
  EN: torch.optim is forbidden.
- ID: clamp_weights_ mengembalikan w itu sendiri: tetap leaf, tetap requires_grad, .grad-nya
      tidak berubah.
  EN: clamp_weights_ returns w itself: still a leaf, still requiring grad, its .grad unchanged.
- ID: Setiap pemanggilan membiarkan objek pemanggil (tensor, .grad dan flag-nya, modul) dan mode
      global (grad mode, anomaly detection, dtype bawaan) seperti semula, kecuali yang memang
      diminta untuk diubah.
  EN: Every call leaves the caller's objects (tensors, their .grad and flags, modules) and the
      global modes (grad mode, anomaly detection, the default dtype) as it found them, except
      what it is asked to change.
"""

import torch


def sgd_step(params, lr):
    """ID: p ← p - lr·p.grad di tempat untuk setiap p yang punya .grad, lalu kosongkan .grad.
        Tanpa torch.optim. Tidak mengembalikan apa pun.
    EN: p ← p - lr·p.grad in place for every p that has a .grad, then clear .grad.
        No torch.optim. Returns nothing.
    """
    # TODO: with torch.no_grad(): ...
    raise NotImplementedError("sgd_step belum diimplementasikan / sgd_step is not implemented yet")


def clamp_weights_(w, limit):
    """ID: batasi w ke [-limit, limit] di tempat dan kembalikan w (tetap leaf, tetap requires_grad).
    EN: limit w to [-limit, limit] in place and return w (still a leaf, still requiring grad).
    """
    # TODO
    raise NotImplementedError("clamp_weights_ belum diimplementasikan / "
                              "clamp_weights_ is not implemented yet")
