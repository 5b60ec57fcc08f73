"""detach() untuk straight-through estimator dan EMA bobot / detach() for a straight-through
estimator and an EMA of weights.

ID: Bagian "Detaching dan No Grad": y.detach() memutus tensor dari graf, dan operasi di dalam
    torch.no_grad() tidak dilacak.
    Jalankan `python -m grader check detach_tricks` untuk menilai jawabanmu.
EN: The "Detaching dan No Grad" section: y.detach() cuts a tensor off the graph, and operations
    inside torch.no_grad() are not tracked.
    Run `python -m grader check detach_tricks` to grade your answer.

Contoh pemakaian / usage:

    x = torch.tensor([0.3, 1.7], requires_grad=True)
    y = round_ste(x)          # tensor([0., 2.])
    y.sum().backward()
    x.grad                    # tensor([1., 1.])

Dilarang (di seluruh file ini), alias privatnya (torch._...) juga /
Forbidden (anywhere in this file), their private aliases (torch._...) too:
    torch.autograd.Function.

Aturan yang dinilai / Rules that are graded:
- ID: round_ste: gunakan detach(), tanpa autograd.Function.
  EN: round_ste: use detach(), no autograd.Function.
- ID: ema_update: perbarui e di tempat.
  EN: ema_update: update e in place.
- ID: e harus tetap tensor biasa tanpa graf (requires_grad False, grad_fn None).
  EN: e must stay a plain tensor without a graph (requires_grad False, grad_fn None).
- ID: p, p.grad dan requires_grad-nya tidak berubah.
  EN: p, p.grad and its requires_grad do not change.
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


def round_ste(x):
    """ID: nilai torch.round(x), gradien seperti identitas (straight-through), dengan detach().
    EN: the value torch.round(x), the gradient of the identity (straight-through), with detach().
    """
    raise NotImplementedError("round_ste belum diimplementasikan / round_ste is not implemented yet")


def ema_update(ema, params, decay):
    """ID: e ← decay·e + (1 - decay)·p di tempat untuk setiap (e, p); e tanpa graf, p tidak berubah.
    EN: e ← decay·e + (1 - decay)·p in place for each (e, p); e without a graph, p unchanged.
    """
    raise NotImplementedError("ema_update belum diimplementasikan / ema_update is not implemented yet")
