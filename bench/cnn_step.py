"""The CNN training step of issue 14 side by side with torch, one intra-op thread.

Two blocks of Conv2d(3x3, padding 1) + BatchNorm2d + ReLU + MaxPool2d(2), a linear head, batch 8
of 1x28x28, float32, cross entropy, SGD(lr=0.01). Both models start from the same weights; the
first step's losses must agree (checked). Prints ms/step per library, the paired ratio
transgrad / torch (median over repeats, each repeat's libraries interleaved) and, with
``--profile``, the share of forward and backward of each stage in transgrad.

    python bench/cnn_step.py [--repeats 7] [--steps 20] [--profile] [--reference]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from libs import ensure_transgrad_importable  # noqa: E402

CHANNELS = (8, 16)


def build(lib, state=None):
    nn = lib.nn

    model = nn.Sequential(
        nn.Conv2d(1, CHANNELS[0], 3, padding=1), nn.BatchNorm2d(CHANNELS[0]), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(CHANNELS[0], CHANNELS[1], 3, padding=1), nn.BatchNorm2d(CHANNELS[1]),
        nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(CHANNELS[1] * 7 * 7, 10))
    if state is not None:
        model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    return model


def make_step(lib, model, x, y):
    opt = lib.optim.SGD(model.parameters(), lr=0.01)
    F = lib.nn.functional

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def time_step(step, steps):
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - t0) / steps


def profile(tg, model, x, y, steps):
    """transgrad's forward time per stage, then the whole backward, in ms."""
    import transgrad.nn.functional as F
    rows = []
    for _ in range(steps):
        h, t = x, []
        for layer in model:
            t0 = time.perf_counter()
            h = layer(h)
            t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        loss = F.cross_entropy(h, y)
        t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        loss.backward()
        t.append(time.perf_counter() - t0)
        model.zero_grad()
        rows.append(t)
    med = np.median(np.array(rows), axis=0) * 1e3
    names = [type(m).__name__ for m in model] + ["cross_entropy", "backward (all)"]
    for n, v in zip(names, med):
        print(f"  {n:16s} {v:7.3f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--reference", action="store_true", help="also time transgrad.reference")
    args = ap.parse_args()
    ensure_transgrad_importable()  # not at import: bench/run.py imports this module

    import torch
    import transgrad as tg
    torch.set_num_threads(1)
    if hasattr(tg, "set_num_threads"):
        tg.set_num_threads(1)

    rng = np.random.default_rng(0)
    xs = rng.standard_normal((8, 1, 28, 28)).astype(np.float32)
    ys = rng.integers(0, 10, 8)
    torch.manual_seed(0)
    t_model = build(torch)
    state = {k: v.numpy().copy() for k, v in t_model.state_dict().items()}
    libs = {"torch": (torch, t_model)}
    engines = [("transgrad", tg)]
    if args.reference:
        import transgrad.reference as ref
        engines.append(("reference", ref))
    for name, m in engines:
        libs[name] = (m, build(m, state))
    steps, losses = {}, {}
    for name, (m, model) in libs.items():
        x = m.tensor(xs)
        y = m.tensor(ys.astype(np.int64))
        steps[name] = make_step(m, model, x, y)
        losses[name] = float(steps[name]().item())
    for name, v in losses.items():
        if abs(v - losses["torch"]) > 1e-4 * max(1.0, abs(losses["torch"])):
            raise SystemExit(f"first-step loss differs: {name} {v} vs torch {losses['torch']}")
    times: dict[str, list[float]] = {n: [] for n in libs}
    order = list(libs)
    for r in range(args.repeats):
        for name in order[r % len(order):] + order[:r % len(order)]:
            n = max(1, args.steps // 10) if name == "reference" else args.steps
            times[name].append(time_step(steps[name], n))
    print(f"CNN step (2x conv3x3+BN+ReLU+maxpool, channels {CHANNELS}, linear head, batch 8 of "
          f"1x28x28, float32, SGD), 1 thread, {args.repeats} repeats x {args.steps} steps")
    for name, ts in times.items():
        ratio = statistics.median(a / b for a, b in zip(ts, times["torch"]))
        print(f"  {name:10s} {statistics.median(ts) * 1e3:8.3f} ms/step   "
              f"{ratio:5.2f}x torch (target <= 1.0x)")
    if args.profile:
        print("transgrad, per stage (median):")
        m, model = libs["transgrad"]
        profile(m, model, m.tensor(xs), m.tensor(ys.astype(np.int64)), args.steps)


if __name__ == "__main__":
    main()
