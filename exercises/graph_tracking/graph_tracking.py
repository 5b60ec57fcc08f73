"""Membaca graf komputasi / Reading the computational graph.

ID: Topik requires_grad: graf komputasi terbentuk otomatis, hasil operasi terlacak membawa
    grad_fn, dan tensor yang ditulis langsung oleh pengguna adalah leaf (is_leaf = True).
    Jalankan `python -m grader check graph_tracking` untuk menilai jawabanmu.
EN: The requires_grad topic: the computational graph is built automatically, results of tracked
    operations carry a grad_fn, and a tensor the user wrote directly is a leaf (is_leaf = True).
    Run `python -m grader check graph_tracking` to grade your answer.

Contoh pemakaian / usage:

    a, y = make_tracked(torch.tensor([2.0]))
    a.is_leaf, type(y.grad_fn).__name__      # True, 'AddBackward0'
    backward_nodes(y)      # ['AccumulateGrad', 'AddBackward0', 'MulBackward0']
    backward_nodes(y * y)  # sama / the same: dua simpul MulBackward0, satu nama /
                           # two MulBackward0 nodes, one name
    count_leaves(y)        # 1

Aturan yang dinilai / Rules that are graded:
- ID: make_tracked: a leaf baru bernilai sama dengan x yang requires_grad.
  EN: make_tracked: a is a new leaf with x's values that requires grad.
- ID: make_tracked: x milik pemanggil tidak boleh berubah.
  EN: make_tracked: the caller's x must not change.
- ID: Setiap pemanggilan membiarkan objek pemanggil (tensor, .grad dan flag-nya, modul) dan mode
      global (grad mode, anomaly detection, dtype bawaan) seperti semula, kecuali yang memang
      diminta untuk diubah.
  EN: Every call leaves the caller's objects (tensors, their .grad and flags, modules) and the
      global modes (grad mode, anomaly detection, the default dtype) as it found them, except
      what it is asked to change.
"""

import torch


def make_tracked(x):
    """ID: (a, y): a leaf baru bernilai x yang requires_grad, y = a × 2 + 1. Jangan ubah x.
    EN: (a, y): a new leaf with x's values that requires grad, y = a × 2 + 1. Leave x alone.
    """
    raise NotImplementedError("make_tracked belum diimplementasikan / "
                              "make_tracked is not implemented yet")


def backward_nodes(out):
    """ID: list terurut nama kelas yang berbeda dari simpul backward yang dapat dicapai dari
        out.grad_fn: setiap nama tepat sekali (tanpa duplikat), walaupun beberapa simpul
        berbagi nama itu; [] jika out tidak punya grad_fn.
    EN: the sorted list of the distinct class names of the backward nodes reachable from
        out.grad_fn: each name exactly once (no duplicates), even when several nodes share it;
        [] when out has no grad_fn.
    """
    raise NotImplementedError("backward_nodes belum diimplementasikan / "
                              "backward_nodes is not implemented yet")


def count_leaves(out):
    """ID: banyaknya leaf berbeda yang akan menerima .grad dari out.backward().
    EN: how many distinct leaves out.backward() would give a .grad.
    """
    raise NotImplementedError("count_leaves belum diimplementasikan / "
                              "count_leaves is not implemented yet")
