"""Latihan 3: debug neural network yang menghasilkan NaN gradient.

ID: Classifier kecil di bawah ini dilatih pada data sensor: fitur bernilai ratusan, dan sekitar
    seperlima baris nol semua karena sensornya mati. Jalankan
    `python exercises/nan_debugging/nan_debugging.py` dari folder utama repositori (di notebook:
    jalankan semua selnya): loss sudah nan sejak langkah pertama. Setelah satu penyebab
    diperbaiki, loss langkah pertama menjadi angka, tetapi gradien W1 tetap NaN. Kedua
    penyebabnya ada di log_softmax dan safe_norm. Tulis dulu find_nan_source, alat yang menunjuk
    node backward pertama yang menghasilkan NaN (pakai anomaly detection), gunakan untuk
    menemukan penyebabnya, lalu perbaiki kedua fungsi itu. Nilai dan gradien dibandingkan dengan
    torch; trik epsilon atau nan_to_num yang hanya menyembunyikan NaN tidak lolos.
    Jalankan `python -m grader check nan_debugging` untuk menilai jawabanmu.
EN: The small classifier below trains on sensor data: features in the hundreds, and about a fifth of
    the rows all zero because their sensor is dead. Run
    `python exercises/nan_debugging/nan_debugging.py` from the repository's top folder (in a
    notebook: run all its cells): the loss is nan from the very first step. Once one cause is
    fixed, the first step's loss is a number, yet W1's gradient stays NaN. The two causes are in
    log_softmax and safe_norm. First write find_nan_source, a tool that names the first backward
    node producing NaN (with anomaly detection), use it to find the causes, then fix both
    functions. Values and gradients are compared with torch; an epsilon or nan_to_num that only
    hides the NaN does not pass.
    Run `python -m grader check nan_debugging` to grade your answer.

The model (the grader runs its own copy of this loop with your log_softmax and safe_norm):

    h      = X W1ᵀ                  embedding of each reading (samples x hidden)
    logits = h W2ᵀ + b2             one score per class
    loss   = mean(-log_softmax(logits)[y]) + 0.01 · mean(safe_norm(h))

Aturan yang dinilai / Rules that are graded:
- ID: log_softmax: nilai dan gradiennya tetap hingga untuk setiap input hingga, termasuk |logit|
      sampai 1e4 dan baris yang elemennya berselisih ribuan.
  EN: log_softmax: its values and gradients stay finite for every finite input, including
      |logits| up to 1e4 and rows whose entries differ by thousands.
- ID: Trik epsilon seperti log(softmax + 1e-8) atau nan_to_num bukan perbaikan: nilai dan
      gradien dibandingkan.
  EN: An epsilon hack such as log(softmax + 1e-8) or nan_to_num is not a fix: values and
      gradients are compared.
- ID: safe_norm: tetap hingga di mana pun, termasuk di v = 0.
  EN: safe_norm: it stays finite everywhere, v = 0 included.
- ID: find_nan_source: setelan anomaly detection global harus kembali seperti semula.
  EN: find_nan_source: leave the global anomaly-detection setting as you found it.
- ID: Loop training di file ini, dengan fungsi-fungsimu, harus menjaga loss dan semua parameter
      tetap hingga.
  EN: The training loop in this file, with your functions, must keep the loss and every
      parameter finite.
- ID: Setiap pemanggilan membiarkan objek pemanggil (tensor, .grad dan flag-nya, modul) dan mode
      global (grad mode, anomaly detection, dtype bawaan) seperti semula, kecuali yang memang
      diminta untuk diubah.
  EN: Every call leaves the caller's objects (tensors, their .grad and flags, modules) and the
      global modes (grad mode, anomaly detection, the default dtype) as it found them, except
      what it is asked to change.
- ID: Argumen tensor bisa datang contiguous, transposed atau strided.
  EN: Tensor arguments may arrive contiguous, transposed or strided.
"""

import math

import torch


def log_softmax(logits):
    """ID: log softmax atas dimensi terakhir; nilai dan gradien sama dengan torch.log_softmax,
        dan hingga untuk setiap input hingga (|logit| sampai 1e4).
    EN: the log softmax over the last dimension; values and gradients equal torch.log_softmax's,
        finite for every finite input (|logits| up to 1e4).
    """
    # BUG: exp(400) sudah inf di float32. / exp(400) is already inf in float32.
    e = torch.exp(logits)
    return torch.log(e / e.sum(dim=-1, keepdim=True))


def safe_norm(v):
    """ID: norma L2 atas dimensi terakhir; nilai sama dengan torch.linalg.vector_norm, gradien
        hingga di mana pun, juga di v = 0.
    EN: the L2 norm over the last dimension; its value equals torch.linalg.vector_norm's, its
        gradient is finite everywhere, v = 0 included.
    """
    # BUG? Coba hitung gradiennya di v = 0. / Try its gradient at v = 0.
    return torch.sqrt((v * v).sum(dim=-1))


def find_nan_source(fn, *inputs):
    """ID: jalankan fn(*inputs) (skalar) dan backward-nya; kembalikan nama node backward pertama
        yang menghasilkan NaN, persis seperti anomaly detection menamainya (misalnya
        "LogBackward0"), atau None bila tidak ada NaN. Setelan anomaly detection global harus
        kembali seperti semula.
    EN: run fn(*inputs) (a scalar) and its backward; return the name of the first backward node
        that produces NaN, exactly as anomaly detection names it (e.g. "LogBackward0"), or None
        when there is no NaN. Leave the global anomaly-detection setting as you found it.

    inputs: tensor leaf dengan requires_grad=True / leaf tensors with requires_grad=True.
    Contoh / example: w = torch.tensor([1., 2.], requires_grad=True)
        find_nan_source(lambda w: torch.sqrt(w * 0).sum(), w)  ->  "MulBackward0"
        find_nan_source(lambda w: (w ** 2).sum(), w)           ->  None
    """
    # TODO: torch.autograd.detect_anomaly(), lalu baca pesan RuntimeError-nya
    raise NotImplementedError("find_nan_source belum diimplementasikan / is not implemented yet")


# --- Data, model dan training loop / data, model and training loop ------------------------

PARAMS = ("W1", "W2", "b2")


def sensor_data(seed=0, samples=64, features=8, classes=3, scale=400.0, dead=0.2):
    """Bacaan sensor X (samples x features, sebagian baris nol) dan label y."""
    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(classes, features, generator=g) * scale
    y = torch.randint(classes, (samples,), generator=g)
    X = centres[y] + 0.1 * scale * torch.randn(samples, features, generator=g)
    is_dead = torch.rand(samples, generator=g) < dead
    is_dead[0] = True
    X[is_dead] = 0  # sensor mati / a dead sensor
    return X, y


def initial_params(seed=0, features=8, hidden=6, classes=3):
    g = torch.Generator().manual_seed(seed + 1)
    return {
        "W1": torch.randn(hidden, features, generator=g) / math.sqrt(features),
        "W2": torch.randn(classes, hidden, generator=g) / math.sqrt(hidden),
        "b2": torch.zeros(classes),
    }


def train(steps=5, lr=1e-3, penalty=1e-2, seed=0):
    X, y = sensor_data(seed)
    params = {k: p.requires_grad_(True) for k, p in initial_params(seed).items()}
    for step in range(steps):
        h = X @ params["W1"].T
        logits = h @ params["W2"].T + params["b2"]
        loss = -log_softmax(logits).gather(1, y[:, None]).mean() + penalty * safe_norm(h).mean()
        grads = torch.autograd.grad(loss, [params[k] for k in PARAMS])
        finite = {k: bool(torch.isfinite(g).all()) for k, g in zip(PARAMS, grads)}
        print(f"langkah/step {step}: loss = {loss.item():.4f}, |logit| maks = "
              f"{logits.abs().max().item():.0f}, gradien hingga / finite grads: {finite}")
        params = {k: (params[k] - lr * g).detach().requires_grad_(True)
                  for k, g in zip(PARAMS, grads)}
    return params


if __name__ == "__main__":
    train()
