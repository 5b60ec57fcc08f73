"""Parameter dan pembekuan layer / Parameters and freezing layers.

ID: Topik requires_grad: nn.Parameter menyetel requires_grad=True secara otomatis, dan
    param.requires_grad_(False) membekukan layer (transfer learning: hanya pengekstrak ciri).
    model.features (Linear, Tanh) dan model.head (Linear) diberikan oleh grader.
    Jalankan `python -m grader check freeze_layers` untuk menilai jawabanmu.
EN: The requires_grad topic: nn.Parameter sets requires_grad=True automatically, and
    param.requires_grad_(False) freezes a layer (transfer learning: only the feature extractor).
    model.features (Linear, Tanh) and model.head (Linear) are given by the grader.
    Run `python -m grader check freeze_layers` to grade your answer.

Contoh pemakaian / usage:

    model = nn.Sequential()
    model.add_module("features", nn.Sequential(nn.Linear(4, 3), nn.Tanh()))
    model.add_module("head", nn.Linear(3, 1))
    freeze_features(model)
    trainable_names(model)       # ['head.weight', 'head.bias']

Aturan yang dinilai / Rules that are graded:
- ID: model.head tetap terlacak.
  EN: model.head stays tracked.
- ID: Nol-kan dulu gradien lama head (bisa berisi sisa langkah sebelumnya).
  EN: Zero the head's old gradients first (they may hold a previous step's).
- ID: Satu langkah SGD yang hanya mengubah model.head; .grad features tetap None.
  EN: One SGD step that changes only model.head; the features' .grad stays None.
- ID: Kembalikan nilai loss (float) sebelum langkah.
  EN: Return the loss (a float) before the step.
- ID: Setiap pemanggilan membiarkan objek pemanggil (tensor, .grad dan flag-nya, modul) dan mode
      global (grad mode, anomaly detection, dtype bawaan) seperti semula, kecuali yang memang
      diminta untuk diubah.
  EN: Every call leaves the caller's objects (tensors, their .grad and flags, modules) and the
      global modes (grad mode, anomaly detection, the default dtype) as it found them, except
      what it is asked to change.
"""

import torch
import torch.nn.functional as F


def trainable_names(model):
    """ID: nama parameter yang masih requires_grad, sesuai urutan named_parameters().
    EN: the names of the parameters that still require grad, in named_parameters() order.
    """
    raise NotImplementedError("trainable_names belum diimplementasikan / "
                              "trainable_names is not implemented yet")


def freeze_features(model):
    """ID: bekukan semua parameter model.features; model.head tetap terlacak.
    EN: freeze every parameter of model.features; model.head stays tracked.
    """
    raise NotImplementedError("freeze_features belum diimplementasikan / "
                              "freeze_features is not implemented yet")


def train_head_step(model, x, target, lr):
    """ID: bekukan features, satu langkah SGD pada F.mse_loss(model(x), target) untuk head saja;
        kembalikan loss (float) sebelum langkah.
    EN: freeze the features, one SGD step on F.mse_loss(model(x), target) for the head only;
        return the loss (a float) before the step.
    """
    raise NotImplementedError("train_head_step belum diimplementasikan / "
                              "train_head_step is not implemented yet")
