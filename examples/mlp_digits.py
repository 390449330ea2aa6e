"""Train an MLP on scikit-learn's bundled digits (8x8 images, 10 classes; no download).

    python examples/mlp_digits.py                       # compiled engine (transgrad._C)
    python examples/mlp_digits.py --engine reference    # pure-Python engine, same code

Needs scikit-learn (``pip install transgrad[examples]``). Prints a progress bar on stderr, then
the final loss, the test accuracy and the wall time.
"""

from __future__ import annotations

import os

# Note [Threads for small models]
# These models multiply 64x128 matrices: BLAS and intra-op threads cost more than they give
# (on a busy 2-core machine, 30x more). One thread each unless the user says otherwise; set
# OPENBLAS_NUM_THREADS / TG_NUM_THREADS to override. Must run before numpy loads OpenBLAS.
if __name__ == "__main__":  # run as a script: imported (e.g. by tests), it changes nothing
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("TG_NUM_THREADS", "1")

import argparse
import sys
import time
from typing import Any

import numpy as np


def load_engine(name: str) -> tuple[Any, Any, Any, Any]:
    """(tg, nn, F, optim) for ``compiled`` or ``reference``; SystemExit with a message if the
    compiled engine is not built."""
    if name == "reference":
        import transgrad.reference as tg
        from transgrad.reference import nn, optim
    else:
        import transgrad as tg

        if getattr(tg, "_C", None) is None:
            raise SystemExit("the compiled engine (transgrad._C) is not built here: build it "
                             "with `pip install .`, or run with --engine reference")
        from transgrad import nn, optim
    return tg, nn, nn.functional, optim


def load_digits(seed: int, test_fraction: float = 0.25):
    """Standardised features (N, 64) float, int64 labels, split train/test with a fixed seed."""
    try:
        from sklearn.datasets import load_digits as sk_load_digits
    except ImportError:
        raise SystemExit("this example needs scikit-learn: pip install scikit-learn") from None
    data = sk_load_digits()
    x = data.data.astype(np.float64)
    y = data.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    n_test = int(len(x) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    mean, std = x[train].mean(0), x[train].std(0) + 1e-6
    x = (x - mean) / std
    return x[train], y[train], x[test], y[test]


class Progress:
    """A one-line progress bar on stderr: ``epoch 3/20 [#####.....] loss 0.1234``."""

    def __init__(self, total: int, width: int = 30, stream: Any = sys.stderr):
        self.total, self.width, self.stream = total, width, stream
        self.tty = getattr(stream, "isatty", lambda: False)()

    def update(self, done: int, text: str) -> None:
        filled = self.width * done // self.total
        bar = "#" * filled + "." * (self.width - filled)
        line = f"[{bar}] {done}/{self.total} {text}"
        if self.tty:
            self.stream.write("\r" + line)
        elif done == self.total or done % max(1, self.total // 5) == 0:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def train(engine: str = "compiled", epochs: int = 20, hidden: int = 128, lr: float = 1e-3,
          batch_size: int = 64, seed: int = 0, dtype: str = "float32",
          quiet: bool = False) -> dict:
    """Train and evaluate; returns loss, accuracy and wall time."""
    tg, nn, F, optim = load_engine(engine)
    xtr, ytr, xte, yte = load_digits(seed)
    dt = getattr(tg, dtype)
    tg.manual_seed(seed)
    model = nn.Sequential(nn.Linear(64, hidden, dtype=dt), nn.ReLU(),
                          nn.Linear(hidden, hidden, dtype=dt), nn.ReLU(),
                          nn.Linear(hidden, 10, dtype=dt))
    opt = optim.Adam(model.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    xtr_t = xtr.astype(np.dtype(dtype))
    steps_per_epoch = (len(xtr) + batch_size - 1) // batch_size
    bar = None if quiet else Progress(epochs * steps_per_epoch)
    start = time.perf_counter()
    step = 0
    loss_value = float("nan")
    for epoch in range(epochs):
        order = rng.permutation(len(xtr))
        for b in range(steps_per_epoch):
            idx = order[b * batch_size:(b + 1) * batch_size]
            xb = tg.tensor(xtr_t[idx], dtype=dt)
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
    return result(tg, model, engine, loss_value, start, xtr, xte.astype(np.dtype(dtype)), yte, dt)


def result(tg: Any, model: Any, engine: str, loss_value: float, start: float, xtr: Any,
           xte: Any, yte: Any, dt: Any) -> dict:
    """Test accuracy in eval mode (e.g. batch norm on its running statistics) and the report."""
    model.eval()
    with tg.no_grad():
        logits = model(tg.tensor(xte, dtype=dt))
    accuracy = float((np.asarray(logits).argmax(1) == yte).mean())
    seconds = time.perf_counter() - start
    return {"engine": engine, "loss": loss_value, "accuracy": accuracy, "seconds": seconds,
            "train": len(xtr), "test": len(xte)}


def print_result(r: dict) -> None:
    print(f"{r['engine']} engine: final batch loss {r['loss']:.4f}, test accuracy "
          f"{100 * r['accuracy']:.1f}% ({r['test']} images), {r['seconds']:.1f} s")


def main(argv: Any = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--engine", choices=("compiled", "reference"), default="compiled")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    a = p.parse_args(argv)
    print_result(train(a.engine, a.epochs, a.hidden, a.lr, a.batch_size, a.seed, a.dtype))
    return 0


if __name__ == "__main__":
    sys.exit(main())
