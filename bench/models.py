"""Model training steps side by side with torch (issue 14's speed targets), 1 intra-op thread.

    python bench/models.py                     # LSTM, GRU and TLM, 7 repeats
    python bench/models.py --only LSTM --repeats 3
    python bench/models.py --only TLM --phases   # also forward / backward / step, CPU time

Input: nothing (sizes are the issue's). Output: a table of ms/step for transgrad (compiled) and
torch, and the paired ratio (each repeat's transgrad time over torch's in the same repeat, then
the median, as report.py's Note [Paired ratios]). Workloads:

- LSTM: ``nn.LSTM(64, 128)`` over (seq 32, batch 16, 64), mean of squared outputs, SGD step;
  target ≤ 0.8× torch.
- GRU: the same on ``nn.GRU`` (no target of its own; issue 14 asks for its fused cell).
- TLM: a transformer LM, ``nn.TransformerEncoder`` of 2 layers (d_model 128, 4 heads, feed-forward
  512, causal mask, batch_first), embedding and head, seq 64, batch 8, cross-entropy, AdamW step;
  target ≤ 0.8× torch.

Both libraries start from the same weights (torch's state dict loaded into transgrad) and data;
before timing, one step's loss and gradients are compared (``grads`` column: the largest
max|a - b| / max|b| over the parameters), so a fast wrong step shows as a mismatch. The model
code is written once against the PyTorch-style API (``main(torch)`` as in tests/programs).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from libs import ensure_transgrad_importable  # noqa: E402

TARGET = 0.8


def lstm_model(lib: Any, kind: str = "LSTM") -> tuple[Any, Callable[[], Any], Any]:
    """(model, step, optimizer) of the LSTM workload on ``lib`` (torch or transgrad); ``kind``
    "GRU" is the same workload on nn.GRU."""
    model = getattr(lib.nn, kind)(64, 128)
    x = lib.tensor(np.random.default_rng(1).standard_normal((32, 16, 64)).astype(np.float32))
    opt = lib.optim.SGD(model.parameters(), lr=0.01)

    def loss() -> Any:
        out, _ = model(x)
        return (out * out).mean()

    return model, loss, opt


def tlm_model(lib: Any) -> tuple[Any, Callable[[], Any], Any]:
    """(model, step, optimizer) of the transformer LM workload on ``lib``."""
    nn, F = lib.nn, lib.nn.functional
    V, D, T, B = 128, 128, 64, 8

    class LM(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(V, D)
            self.pos = nn.Parameter(lib.zeros(T, D))
            layer = nn.TransformerEncoderLayer(D, 4, dim_feedforward=4 * D, dropout=0.0,
                                               batch_first=True)
            self.body = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.head = nn.Linear(D, V)
            self.mask = nn.Transformer.generate_square_subsequent_mask(T)

        def forward(self, idx: Any) -> Any:
            return self.head(self.body(self.emb(idx) + self.pos, mask=self.mask,
                                       is_causal=True))

    model = LM()
    ids = np.random.default_rng(2).integers(0, V, size=(B, T + 1))
    x, y = lib.tensor(ids[:, :-1]), lib.tensor(ids[:, 1:])
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3)

    def loss() -> Any:
        return F.cross_entropy(model(x).reshape(B * T, V), y.reshape(B * T))

    return model, loss, opt


WORKLOADS = {
    "LSTM": ("nn.LSTM step (seq 32, batch 16, input 64, hidden 128), SGD", lstm_model),
    "GRU": ("nn.GRU step (seq 32, batch 16, input 64, hidden 128), SGD",
            lambda lib: lstm_model(lib, "GRU")),
    "TLM": ("transformer LM step (2 layers, d_model 128, 4 heads, seq 64, batch 8), AdamW",
            tlm_model),
}


def _pair(make: Callable, torch: Any, tg: Any) -> tuple[tuple, tuple]:
    torch.manual_seed(0)
    t = make(torch)
    g = make(tg)
    g[0].load_state_dict({k: tg.tensor(v.detach().numpy()) for k, v in t[0].state_dict().items()})
    return t, g


def _grad_mismatch(t: tuple, g: tuple) -> float:
    for _, loss, opt in (t, g):
        opt.zero_grad()
        loss().backward()
    theirs = dict(t[0].named_parameters())
    worst = 0.0
    for name, p in g[0].named_parameters():
        a, b = np.asarray(p.grad), theirs[name].grad.numpy()
        worst = max(worst, float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-30)))
    return worst


def _time_step(loss: Callable[[], Any], opt: Any, min_s: float) -> float:
    """Seconds per training step, looping until a sample lasts ``min_s``."""
    gc.collect()
    gc.disable()
    try:
        n, start = 0, time.perf_counter()
        while True:
            opt.zero_grad()
            loss().backward()
            opt.step()
            n += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_s:
                return elapsed / n
    finally:
        gc.enable()


def _phases(loss: Callable[[], Any], opt: Any, steps: int) -> tuple[float, float, float]:
    """CPU seconds per step spent in the forward, the backward and the optimizer step (process
    time: less sensitive than wall time to other processes on a shared machine)."""
    fwd = bwd = upd = 0.0
    gc.collect()
    gc.disable()
    try:
        for _ in range(steps):
            opt.zero_grad()
            t0 = time.process_time()
            value = loss()
            t1 = time.process_time()
            value.backward()
            t2 = time.process_time()
            opt.step()
            t3 = time.process_time()
            fwd, bwd, upd = fwd + t1 - t0, bwd + t2 - t1, upd + t3 - t2
    finally:
        gc.enable()
    return fwd / steps, bwd / steps, upd / steps


def print_phases(key: str, t: tuple, g: tuple, repeats: int, steps: int = 20) -> None:
    """Where a step's time goes, transgrad beside torch: medians over ``repeats`` alternating
    samples of the forward, backward and optimizer step (CPU ms) and their ratios."""
    ours: list[tuple[float, float, float]] = []
    theirs: list[tuple[float, float, float]] = []
    for r in range(repeats):
        order = [(g, ours), (t, theirs)] if r % 2 == 0 else [(t, theirs), (g, ours)]
        for (_, loss, opt), store in order:
            store.append(_phases(loss, opt, steps))
    cells = []
    for i, phase in enumerate(("forward", "backward", "step")):
        a = statistics.median(x[i] for x in ours) * 1e3
        b = statistics.median(x[i] for x in theirs) * 1e3
        cells.append(f"{phase} {a:.2f}/{b:.2f} ms ({a / b:.2f}×)")
    print(f"{key:<6} CPU time, transgrad/torch: " + ", ".join(cells))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default=",".join(WORKLOADS))
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--min-sample", type=float, default=0.2)
    ap.add_argument("--phases", action="store_true",
                    help="also split each step into forward, backward and optimizer step")
    args = ap.parse_args(argv)
    ensure_transgrad_importable()
    import torch
    import transgrad as tg

    torch.set_num_threads(1)
    tg.set_num_threads(1)
    print(f"torch {torch.__version__}, 1 intra-op thread each; {args.repeats} repeats; "
          f"ratio = median of paired transgrad/torch times (≤ {TARGET}× is the target)")
    print(f"{'workload':<6} {'transgrad ms':>13} {'torch ms':>9} {'ratio':>7} {'grads':>9}  "
          f"target  what")
    for key in args.only.split(","):
        title, make = WORKLOADS[key]
        t, g = _pair(make, torch, tg)
        mismatch = _grad_mismatch(t, g)
        ours, theirs, ratios = [], [], []
        for r in range(args.repeats):
            order = [(g, ours), (t, theirs)] if r % 2 == 0 else [(t, theirs), (g, ours)]
            for (_, loss, opt), store in order:
                store.append(_time_step(loss, opt, args.min_sample))
            ratios.append(ours[-1] / theirs[-1])
        ratio = statistics.median(ratios)
        verdict = "ok" if ratio <= TARGET else "MISSED"
        grads = f"{mismatch:.1e}" if mismatch < 1e-3 else f"MISMATCH {mismatch:.1e}"
        print(f"{key:<6} {statistics.median(ours) * 1e3:>13.2f} "
              f"{statistics.median(theirs) * 1e3:>9.2f} {ratio:>6.2f}× {grads:>9}  "
              f"{verdict:<6}  {title}")
        if args.phases:
            print_phases(key, t, g, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
