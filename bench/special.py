"""Special functions: forward time per 1e6 float64 elements, transgrad's compiled kernels
against torch (CPU), one row each with the ratio.

Input: the installed ``transgrad`` (compiled) and, optionally, torch. Output: one line per
function: ``name  transgrad ms  torch ms  ratio``; ``--json OUT`` also writes the rows. Each
time is the best of ``--repeat`` runs (threads as each library sets them), on inputs inside the
function's domain. Run: ``python bench/special.py [--n 1000000] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any, Callable

import numpy as np

# name -> (transgrad path, torch path, low, high)
FUNCTIONS = {
    "erfinv": ("erfinv", "erfinv", -0.99, 0.99),
    "erfc": ("erfc", "erfc", -4.0, 4.0),
    "lgamma": ("lgamma", "lgamma", 0.1, 20.0),
    "digamma": ("digamma", "digamma", 0.1, 20.0),
    "polygamma(1)": ("polygamma1", "polygamma1", 0.1, 20.0),
    "i0": ("i0", "i0", -20.0, 20.0),
    "special.log_ndtr": ("special.log_ndtr", "special.log_ndtr", -30.0, 5.0),
    "special.erfcx": ("special.erfcx", "special.erfcx", -3.0, 30.0),
}


def _fn(lib: Any, path: str) -> Callable[[Any], Any]:
    if path == "polygamma1":
        return lambda x: lib.polygamma(1, x)
    obj = lib
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _best(f: Callable[[], Any], repeat: int) -> float:
    f()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", nargs="+")
    parser.add_argument("--json")
    args = parser.parse_args()
    import transgrad as tg

    try:
        import torch
    except ImportError:
        torch = None
    rng = np.random.default_rng(0)
    rows = []
    for name, (ours, theirs, low, high) in FUNCTIONS.items():
        if args.only and name not in args.only:
            continue
        a = rng.uniform(low, high, args.n)
        x = tg.tensor(a)
        f_ours = _fn(tg, ours)
        t_ours = _best(lambda f=f_ours, x=x: f(x), args.repeat) * 1e3 * 1e6 / args.n
        t_torch = None
        if torch is not None:
            xt = torch.tensor(a)
            f_torch = _fn(torch, theirs)
            t_torch = _best(lambda f=f_torch, xt=xt: f(xt), args.repeat) * 1e3 * 1e6 / args.n
        ratio = t_ours / t_torch if t_torch else None
        rows.append({"name": name, "transgrad_ms": t_ours, "torch_ms": t_torch, "ratio": ratio})
        print(f"{name:<18} transgrad {t_ours:8.2f} ms  torch "
              + (f"{t_torch:7.2f} ms  ratio {ratio:6.1f}x" if t_torch else "   (no torch)"),
              flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
