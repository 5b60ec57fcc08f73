"""Latihan 4: gradient penalty untuk regularisasi (WGAN-GP).

ID: Critic pada WGAN-GP diregularisasi agar gradiennya terhadap input bernorma sekitar 1, diukur
    di titik-titik di antara data asli (real) dan data palsu (fake). Tulis gradient_penalty di
    bawah, lalu jalankan `python -m grader check gradient_penalty` untuk menilai jawabanmu.
EN: A WGAN-GP critic is regularized so that its gradient with respect to its input has a norm
    near 1, measured at points between real and fake data. Write gradient_penalty below, then
    run `python -m grader check gradient_penalty` to grade your answer.

    x̂       = alpha · real + (1 - alpha) · fake        (alpha: shape (N,), one value per sample)
    g_i      = ∂ critic(x̂)_i / ∂ x̂_i                  (critic(x̂): shape (N, 1) or (N,))
    penalty  = lam · mean_i (‖g_i‖₂ - 1)²               (the norm over every non-batch dimension)

    real, fake: (N, D) or (N, C, H, W). The grader compares the penalty and its gradients with
    respect to the critic's parameters with torch autograd, in float64.

Contoh pemakaian dalam satu langkah critic / use in one critic step:

    loss = critic(fake).mean() - critic(real).mean() + gradient_penalty(critic, real, fake, alpha)
    loss.backward()     # gradient_penalty sendiri tidak memanggil backward / does not backward

Aturan yang dinilai / Rules that are graded:
- ID: Hasilnya harus bisa di-backward ke parameter critic (gradiennya dibandingkan dengan
      autograd).
  EN: The result must backpropagate into the critic's parameters (its gradients are compared
      with autograd).
- ID: Tanpa efek samping: jangan menulis .grad parameter (jangan .backward() di dalam).
  EN: Without side effects: do not write the parameters' .grad (no .backward() inside).
- ID: Jangan mengubah real, fake, alpha, bobot critic, atau requires_grad-nya.
  EN: Do not change real, fake, alpha, the critic's weights or their requires_grad.
- ID: Gradien parameter harus tetap hingga ketika gradien input sebuah sampel tepat nol (critic
      ReLU dengan unit mati).
  EN: Parameter gradients must stay finite when a sample's input gradient is exactly zero (a
      ReLU critic with dead units).
- ID: gradient_penalty(critic, real, fake, alpha, lam=10.0): lam bawaan adalah 10.
  EN: gradient_penalty(critic, real, fake, alpha, lam=10.0): lam defaults to 10.
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


def gradient_penalty(critic, real, fake, alpha, lam=10.0):
    """ID: penalty skalar lam · mean((‖∂critic(x̂)/∂x̂‖ - 1)²) yang masih punya graf ke parameter
        critic (create_graph=True). Tanpa efek samping: tidak menulis .grad parameter, tidak
        mengubah real, fake, alpha, atau requires_grad-nya.
    EN: the scalar penalty lam · mean((‖∂critic(x̂)/∂x̂‖ - 1)²), still connected by a graph to
        the critic's parameters (create_graph=True). No side effects: it writes no parameter
        .grad and leaves real, fake, alpha and their requires_grad as they were.
    """
    # TODO 1: x̂ dari real dan fake, dengan alpha yang di-reshape per sampel, sebagai leaf baru
    # TODO 2: out = critic(x̂); g = torch.autograd.grad(..., create_graph=True)[0]
    # TODO 3: norm per sampel atas semua dimensi kecuali batch, lalu lam · mean((norm - 1)²)
    raise NotImplementedError(
        "gradient_penalty belum diimplementasikan / gradient_penalty is not implemented yet")
