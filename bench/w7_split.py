"""Where W7's two-thread speedup goes: the W7 chain's forward and its backward, timed apart.

    python bench/w7_split.py [--repeats 5]

Both use one intra-op thread (so each Python thread keeps to one core) and the W7 sizes (30 ops,
200,000 float32). The forward releases and retakes the GIL around every op, the backward once
for the whole call; speedup = 2 x (one thread, k runs) / (two threads, k runs each, own data).
A forward well below the backward means the GIL handoffs between ops, not the engine, limit
W7 (Note [W7 on two cores] in report.py).
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

N, OPS, K = 200_000, 30, 10


def leaves(tg: Any, seed: int) -> list[Any]:
    r = np.random.default_rng(seed)
    return [tg.from_numpy(r.uniform(-1, 1, N).astype(np.float32)).requires_grad_()
            for _ in range(3)]


def forward(tg: Any, d: list[Any]) -> Any:
    x, w, b = d
    y = x
    for i in range(OPS):
        y = tg.sin(y) if i % 3 == 0 else (y * w if i % 3 == 1 else y + b)
    return y.sum()


def speedup(tg: Any, prep: Callable[[list[Any]], Any], run: Callable[[Any], Any]) -> float:
    ds = [leaves(tg, 1), leaves(tg, 2)]
    args = [prep(ds[0]) for _ in range(K)]
    t0 = time.perf_counter()
    for a in args:
        run(a)
    one = time.perf_counter() - t0
    per_thread = [[prep(d) for _ in range(K)] for d in ds]
    barrier = threading.Barrier(3)

    def body(items: list[Any]) -> None:
        barrier.wait()
        for a in items:
            run(a)

    threads = [threading.Thread(target=body, args=(items,)) for items in per_thread]
    for th in threads:
        th.start()
    barrier.wait()
    t0 = time.perf_counter()
    for th in threads:
        th.join()
    return 2 * one / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    repeats = ap.parse_args().repeats
    import transgrad as tg

    saved = tg.get_num_threads()
    tg.set_num_threads(1)
    try:
        parts = {
            "forward (GIL released around each of 30 ops)": (lambda d: d, lambda d: forward(tg, d)),
            "backward (GIL released once)": (lambda d: forward(tg, d), lambda y: y.backward()),
        }
        for name, (prep, run) in parts.items():
            xs = [speedup(tg, prep, run) for _ in range(repeats)]
            runs = ", ".join(f"{x:.2f}" for x in xs)
            print(f"{name}: two-thread speedup {statistics.median(xs):.2f}x (runs {runs})")
    finally:
        tg.set_num_threads(saved)


if __name__ == "__main__":
    main()
