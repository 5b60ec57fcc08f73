"""Inference dengan torch.no_grad() / Inference with torch.no_grad().

ID: Bagian "Detaching dan No Grad": di dalam torch.no_grad() operasi tidak dilacak. Gunakan
    torch.no_grad() saat inference untuk menghemat memori dan mempercepat komputasi.
    Jalankan `python -m grader check no_grad_inference` untuk menilai jawabanmu.
EN: The "Detaching dan No Grad" section: inside torch.no_grad() operations are not tracked. Use
    torch.no_grad() for inference to save memory and time.
    Run `python -m grader check no_grad_inference` to grade your answer.

Contoh pemakaian / usage:

    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 1))
    y = predict(model, torch.randn(2, 4))
    y.requires_grad, y.grad_fn        # False, None
    evaluate(model, torch.randn(2, 4), torch.zeros(2, 1))    # a float, e.g. 0.27

Aturan yang dinilai / Rules that are graded:
- ID: Keluaran predict tanpa graf: requires_grad False dan grad_fn None.
  EN: predict's output has no graph: requires_grad False and grad_fn None.
- ID: requires_grad setiap parameter tetap seperti semula.
  EN: Every parameter's requires_grad stays as it was.
- ID: .grad parameter tidak tersentuh; evaluate tanpa menulis .grad apa pun.
  EN: The parameters' .grad stays untouched; evaluate writes no .grad at all.
- ID: evaluate mengembalikan loss sebagai float Python (gunakan .item()).
  EN: evaluate returns the loss as a Python float (use .item()).
- ID: Setiap pemanggilan membiarkan objek pemanggil (tensor, .grad dan flag-nya, modul) dan mode
      global (grad mode, anomaly detection, dtype bawaan) seperti semula, kecuali yang memang
      diminta untuk diubah.
  EN: Every call leaves the caller's objects (tensors, their .grad and flags, modules) and the
      global modes (grad mode, anomaly detection, the default dtype) as it found them, except
      what it is asked to change.
"""

import torch
import torch.nn.functional as F


def predict(model, x):
    """ID: model(x) tanpa graf; parameter model tidak berubah (tetap requires_grad).
    EN: model(x) without a graph; the model's parameters unchanged (still requiring grad).
    """
    raise NotImplementedError("predict belum diimplementasikan / predict is not implemented yet")


def evaluate(model, x, target):
    """ID: loss MSE rata-rata antara model(x) dan target, sebagai float; tanpa backward.
    EN: the mean MSE loss between model(x) and target, as a float; no backward.
    """
    raise NotImplementedError("evaluate belum diimplementasikan / evaluate is not implemented yet")
