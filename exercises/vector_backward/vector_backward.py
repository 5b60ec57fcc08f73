"""Backward pada keluaran vektor / Backward on a vector output.

ID: Bagian "Vector Output": keluaran non-skalar butuh gradient vector: y.backward(v) memberi
    x.grad = vᵀ·J. Jacobian lengkap disusun baris demi baris dengan v = e_i.
    Jalankan `python -m grader check vector_backward` untuk menilai jawabanmu.
EN: The "Vector Output" section: a non-scalar output needs a gradient vector: y.backward(v)
    gives x.grad = vᵀ·J. The full Jacobian is built row by row with v = e_i.
    Run `python -m grader check vector_backward` to grade your answer.

Contoh pemakaian / usage:

    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    vector_grad(x, torch.ones_like(x))     # cos(x)·x² + 2x·sin(x)
    jacobian(x).shape                      # (3, 3)

Dilarang (di seluruh file ini), alias privatnya (torch._...) juga /
Forbidden (anywhere in this file), their private aliases (torch._...) too:
    torch.autograd.functional, torch.func.

Aturan yang dinilai / Rules that are graded:
- ID: vector_grad: jangan mengubah x milik pemanggil (buat leaf baru), dan hasilnya harus sama
      jika dipanggil berulang kali.
  EN: vector_grad: leave the caller's x alone (make a new leaf), and return the same result when
      called again.
- ID: jacobian(x): disusun baris demi baris, satu backward per baris: baris i adalah
      vektor-Jacobian product dengan v = vektor satuan e_i.
  EN: jacobian(x): row by row, one backward per row: row i is the vector-Jacobian product with v
      = the unit vector e_i.
- ID: jacobian(x): dengan dtype yang sama dengan x (float32 atau float64).
  EN: jacobian(x): in x's dtype (float32 or float64).
- ID: torch.autograd.functional dan torch.func dilarang.
  EN: torch.autograd.functional and torch.func are forbidden.
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


def vector_grad(x, v):
    """ID: x.grad setelah y.backward(v) untuk y = sin(x)·x², pada leaf baru (x tidak berubah).
    EN: x.grad after y.backward(v) for y = sin(x)·x², on a new leaf (x unchanged).
    """
    raise NotImplementedError("vector_grad belum diimplementasikan / "
                              "vector_grad is not implemented yet")


def jacobian(x):
    """ID: Jacobian (N × N) dari g(x) = tanh(x)·Σx, baris demi baris dengan vector-Jacobian product.
    EN: the (N × N) Jacobian of g(x) = tanh(x)·Σx, row by row with vector-Jacobian products.
    """
    raise NotImplementedError("jacobian belum diimplementasikan / jacobian is not implemented yet")
