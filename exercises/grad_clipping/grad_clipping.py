"""Gradient clipping berdasarkan norma / Gradient clipping by norm.

ID: Bagian "Gradient Clipping": tulis sendiri clip_grad_norm yang sama dengan
    torch.nn.utils.clip_grad_norm_ (yang dilarang di sini).
    Jalankan `python -m grader check grad_clipping` untuk menilai jawabanmu.
EN: The "Gradient Clipping" section: write clip_grad_norm yourself, the same as
    torch.nn.utils.clip_grad_norm_ (which is forbidden here).
    Run `python -m grader check grad_clipping` to grade your answer.

Contoh pemakaian / usage:

    model = nn.Linear(10, 5)
    model(torch.randn(3, 10)).sum().backward()
    total = clip_grad_norm(list(model.parameters()), 1.0, 2.0)   # tensor(...)

Dilarang (di clip_grad_norm), alias privatnya (torch._...) juga /
Forbidden (in clip_grad_norm), their private aliases (torch._...) too:
    torch.nn.utils.

Aturan yang dinilai / Rules that are graded:
- ID: Parameter tanpa .grad (None) dilewati.
  EN: Parameters without a .grad (None) are skipped.
- ID: Kembalikan norma total sebelum clipping, sebagai tensor 0-dimensi (seperti torch).
  EN: Return the total norm before clipping, as a 0-dimensional tensor (as torch does).
- ID: torch.nn.utils dilarang di fungsi ini.
  EN: torch.nn.utils is forbidden in this function.
- ID: Setiap pemanggilan membiarkan objek pemanggil (tensor, .grad dan flag-nya, modul) dan mode
      global (grad mode, anomaly detection, dtype bawaan) seperti semula, kecuali yang memang
      diminta untuk diubah.
  EN: Every call leaves the caller's objects (tensors, their .grad and flags, modules) and the
      global modes (grad mode, anomaly detection, the default dtype) as it found them, except
      what it is asked to change.
"""

import torch


def clip_grad_norm(params, max_norm, norm_type):
    """ID: skalakan .grad di tempat agar norma total ≤ max_norm; kembalikan norma total
        (tensor 0-dimensi) sebelum clipping. Parameter tanpa .grad dilewati.
    EN: scale .grad in place so that the total norm is ≤ max_norm; return the total norm
        (a 0-dimensional tensor) before clipping. Parameters without a .grad are skipped.
    """
    raise NotImplementedError("clip_grad_norm belum diimplementasikan / "
                              "clip_grad_norm is not implemented yet")
