"""Akumulasi gradien atas micro-batch / Gradient accumulation over micro-batches.

ID: Bagian "Gradient Accumulation": backward menambahkan gradien ke .grad. Pecah batch menjadi
    micro-batch, jumlahkan gradiennya, dan hasilnya harus sama dengan gradien seluruh batch.
    Jalankan `python -m grader check grad_accumulation` untuk menilai jawabanmu.
EN: The "Gradient Accumulation" section: backward adds gradients into .grad. Split a batch into
    micro-batches, sum their gradients, and get the gradient of the whole batch.
    Run `python -m grader check grad_accumulation` to grade your answer.

Contoh pemakaian / usage:

    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    accumulate_grads(model, torch.randn(5, 3), torch.randn(5, 1), chunk=2)   # 2 + 2 + 1 rows
    model[0].weight.grad      # = gradient of F.mse_loss(model(x), target)

Aturan yang dinilai / Rules that are graded:
- ID: Nol-kan dulu gradien lama model (bisa berisi sisa langkah sebelumnya).
  EN: First zero the model's old gradients (they may hold a previous step's).
- ID: Untuk setiap micro-batch jalankan forward dan backward; model tidak boleh menerima lebih
      dari chunk baris sekaligus.
  EN: Run forward and backward for each micro-batch; the model must never get more than chunk
      rows at once.
- ID: Tidak mengubah bobot.
  EN: Leaves the weights as they are.
- ID: Setiap pemanggilan membiarkan objek pemanggil (tensor, .grad dan flag-nya, modul) dan mode
      global (grad mode, anomaly detection, dtype bawaan) seperti semula, kecuali yang memang
      diminta untuk diubah.
  EN: Every call leaves the caller's objects (tensors, their .grad and flags, modules) and the
      global modes (grad mode, anomaly detection, the default dtype) as it found them, except
      what it is asked to change.
"""

import torch
import torch.nn.functional as F


def accumulate_grads(model, x, target, chunk):
    """ID: zero grad, lalu forward+backward per micro-batch berukuran chunk, sehingga .grad sama
        dengan gradien F.mse_loss(model(x), target) seluruh batch.
    EN: zero the gradients, then forward+backward per micro-batch of chunk rows, so that .grad
        equals the gradient of the whole batch's F.mse_loss(model(x), target).
    """
    raise NotImplementedError("accumulate_grads belum diimplementasikan / "
                              "accumulate_grads is not implemented yet")
