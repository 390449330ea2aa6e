"""In-process measurement: timing samples, the gradient check, and W1-W5.

Input: the loaded libraries and the sizes. Output: for each workload a results dict whose rows
hold raw per-repeat samples (``time_s``, ``metric``) and the gradient check's verdict. Every
library runs its step once and is checked against the numpy floor before it is timed; then
the libraries are timed round-robin, one sample each per repeat, the starting library rotating
(Note [Paired ratios] in report.py).
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable
from typing import Any

import libs as libs_mod
import numpy as np
import workloads as wl
from libs import Lib


def time_sample(step: Callable[[], Any], inner: int) -> float:
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        for _ in range(inner):
            step()
        return (time.perf_counter() - t0) / inner
    finally:
        gc.enable()


def calibrate(step: Callable[[], Any], min_s: float) -> int:
    t = time_sample(step, 1)
    return max(1, min(10_000, math.ceil(min_s / max(t, 1e-9)))) if min_s > 0 else 1


def rotated(items: list[Any], r: int) -> list[Any]:
    k = r % len(items) if items else 0
    return items[k:] + items[:k]


def check_grads(lib: Lib, got: list[Any], want: list[np.ndarray], rtol: float) -> str:
    """'ok', or what is wrong: relative error is max|got - want| / max|want| per gradient."""
    if len(got) != len(want):
        return f"{len(got)} gradients, expected {len(want)}"
    bad = []
    for i, (g, w) in enumerate(zip(got, want)):
        if g is None:
            bad.append(f"grad {i} is None")
            continue
        a = lib.to_numpy(g) if lib.is_engine else np.asarray(g)
        if a.shape != w.shape:
            bad.append(f"grad {i} has shape {a.shape}, expected {w.shape}")
            continue
        err = float(np.max(np.abs(a.astype(np.float64) - w))) / max(float(np.max(np.abs(w))), 1e-30)
        if not err <= rtol:
            bad.append(f"grad {i} rel. err {err:.2e} > {rtol:.0e}")
    return "ok" if not bad else "; ".join(bad)


def err_text(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    return f"{type(e).__name__}: {msg[0] if msg else ''}"[:300]


def new_row(lib: Lib) -> dict[str, Any]:
    row: dict[str, Any] = {"label": lib.label}
    if lib.skip:
        row["skip"] = lib.skip
    return row


def _size(d: dict[str, Any]) -> int | None:
    """The problem size that can differ between libraries (ratios need equal sizes)."""
    return int(d["x"].size) if "x" in d else None


# ---------------------------------------------------------------------------------------------
# W1-W5: in-process, interleaved


def run_timed(key: str, libs: list[Lib], sz: wl.Sizes) -> dict[str, Any]:
    w = wl.WORKLOADS[key]
    res: dict[str, Any] = {"desc": w.describe(sz), "rows": {}, "notes": []}
    steps: dict[str, Callable[[], Any]] = {}
    inner: dict[str, int] = {}
    datas: dict[str, dict[str, Any]] = {}
    full_size = _size(wl.make_data(key, sz))
    for lib in libs:
        row = res["rows"][lib.name] = new_row(lib)
        if lib.skip:
            continue
        d = datas[lib.name] = wl.make_data(key, sz, lib.name)
        row["size"] = _size(d)
        if row["size"] != full_size:
            row["note"] = f"{key} run at {row['size']:,} elements for this library (capped)"
        try:
            want = w.floor(wl.make_data(key, sz, lib.name))()  # fresh data: W3 updates in place
            if lib.is_engine:
                step = w.engine(lib, d)
                row["check"] = check_grads(lib, step(), want, w.rtol)
            else:
                step = w.floor(d)
                row["check"] = "oracle"
            inner[lib.name] = calibrate(step, sz.min_sample_s)
            steps[lib.name] = step
            row["inner"] = inner[lib.name]
            row["time_s"], row["metric"] = [], []
        except Exception as e:  # noqa: BLE001 - one library failing must not stop the run
            row["error"] = f"failed: {err_text(e)}"
    order = [n for n in libs_mod.ALL_LIBS if n in steps]
    unit = ""
    for r in range(sz.repeats):
        for name in rotated(order, r):
            if "error" in res["rows"][name]:
                continue
            try:
                t = time_sample(steps[name], inner[name])
            except Exception as e:  # noqa: BLE001 - a late failure drops this library only
                res["rows"][name]["error"] = f"failed in repeat {r}: {err_text(e)}"
                continue
            value, unit = w.metric(t, sz, datas[name])
            res["rows"][name]["time_s"].append(t)
            res["rows"][name]["metric"].append(value)
    res["unit"] = unit or w.metric(1.0, sz, wl.make_data(key, sz))[1]
    if key == "W2":
        res["notes"].append(
            f"GB/s counts the bytes a fused implementation must move (Note [W2 byte count] in "
            f"bench/workloads.py); chain of {sz.w2_ops} ops, not 1000 (Note [W2 chain length])"
        )
    if key == "W4":
        res["notes"].append(
            "numpy floor computes both gradients with real matmuls "
            "(ones @ B.T, A.T @ ones), as an engine does"
        )
    if key == "W3":
        res["notes"].append(
            "engines: autograd.grad + functional SGD update under no_grad; "
            "numpy floor: in-place update"
        )
    return res
