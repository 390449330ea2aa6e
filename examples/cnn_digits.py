"""Train a small CNN on scikit-learn's bundled digits (8x8 images, 1 channel; no download).

    python examples/cnn_digits.py                       # compiled engine (transgrad._C)
    python examples/cnn_digits.py --engine reference    # pure-Python engine, same code

The model: conv 1->8 (3x3, padding 1, no bias), BatchNorm2d, ReLU, max-pool 2 (8x8 -> 4x4),
conv 8->16 (3x3, padding 1), ReLU, adaptive average pool to 2x2, flatten, linear 64->10.
Needs scikit-learn (``pip install transgrad[examples]``). Prints a progress bar on stderr, then
the final loss, the test accuracy and the wall time. Data loading, the engine choice and the
progress bar are mlp_digits.py's.
"""

from __future__ import annotations

import os

# Note [Threads for small models] in mlp_digits.py: one BLAS and one intra-op thread unless
# the user says otherwise. Must run before numpy (imported by mlp_digits) loads OpenBLAS.
if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("TG_NUM_THREADS", "1")

import argparse
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mlp_digits import Progress, load_digits, load_engine, print_result, result


def make_model(nn: Any, dt: Any, channels: int = 8) -> Any:
    c1, c2 = channels, 2 * channels
    return nn.Sequential(
        nn.Conv2d(1, c1, 3, padding=1, bias=False, dtype=dt),  # batch norm has the bias
        nn.BatchNorm2d(c1, dtype=dt), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(c1, c2, 3, padding=1, dtype=dt), nn.ReLU(),
        nn.AdaptiveAvgPool2d(2), nn.Flatten(),
        nn.Linear(4 * c2, 10, dtype=dt))


def train(engine: str = "compiled", epochs: int = 15, channels: int = 8, lr: float = 1e-2,
          batch_size: int = 64, seed: int = 0, dtype: str = "float32",
          quiet: bool = False) -> dict:
    """Train and evaluate; returns loss, accuracy and wall time."""
    tg, nn, F, optim = load_engine(engine)
    xtr, ytr, xte, yte = load_digits(seed)
    xtr = xtr.reshape(-1, 1, 8, 8).astype(np.dtype(dtype))
    xte = xte.reshape(-1, 1, 8, 8).astype(np.dtype(dtype))
    dt = getattr(tg, dtype)
    tg.manual_seed(seed)
    model = make_model(nn, dt, channels)
    opt = optim.Adam(model.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    steps_per_epoch = (len(xtr) + batch_size - 1) // batch_size
    bar = None if quiet else Progress(epochs * steps_per_epoch)
    start = time.perf_counter()
    step = 0
    loss_value = float("nan")
    for epoch in range(epochs):
        model.train()
        order = rng.permutation(len(xtr))
        for b in range(steps_per_epoch):
            idx = order[b * batch_size:(b + 1) * batch_size]
            if len(idx) < 2:  # batch norm needs more than one value per channel
                continue
            xb = tg.tensor(xtr[idx], dtype=dt)
            yb = tg.tensor(ytr[idx], dtype=tg.int64)
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            loss_value = loss.item()
            if bar is not None:
                bar.update(step, f"epoch {epoch + 1}/{epochs} loss {loss_value:.4f}")
    if bar is not None:
        bar.close()
    return result(tg, model, engine, loss_value, start, xtr, xte, yte, dt)  # eval: running stats


def main(argv: Any = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--engine", choices=("compiled", "reference"), default="compiled")
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--channels", type=int, default=8)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    a = p.parse_args(argv)
    print_result(train(a.engine, a.epochs, a.channels, a.lr, a.batch_size, a.seed, a.dtype))
    return 0


if __name__ == "__main__":
    sys.exit(main())
