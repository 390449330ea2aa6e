"""W6: long chains, each library and repeat in a fresh subprocess.

The parent (``run_w6``) re-invokes bench/run.py with the hidden ``--child LIB --child-ops N``
flags; the child (``child_main``) runs one chain forward + backward and prints one JSON line:
time, peak and chain RSS (Note [Peak RSS]) and the gradients, which the parent checks against
the numpy floor. A child that crashes or times out becomes an error row, not a failed run.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import subprocess
import sys
import time
from typing import Any

import libs as libs_mod
import numpy as np
import numpy_floor
import workloads as wl
from libs import Lib
from measure import check_grads, new_row, rotated


def _rss_now_kb() -> dict[str, int]:
    out = {}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    out[line.split(":")[0]] = int(line.split()[1])
    except OSError:
        pass
    return out


def child_main(lib_name: str, ops: int) -> int:
    """Runs in the subprocess: one long chain, forward + backward; prints one JSON line."""
    lib = libs_mod.load(lib_name)
    if lib.skip:
        print(json.dumps({"skip": lib.skip}))
        return 0
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    warm = wl.chain_data(1, 99)
    (wl.chain(lib, warm) if lib.is_engine else numpy_floor.chain(warm))()
    d = wl.chain_data(1, ops)
    step = wl.chain(lib, d) if lib.is_engine else numpy_floor.chain(d)
    gc.collect()
    base = _rss_now_kb()
    # Note [Peak RSS]: ru_maxrss survives exec, so a child of a big parent inherits the
    # parent's peak; VmHWM belongs to the child's own address space. Resetting it (writing 5
    # to clear_refs) makes it measure the chain alone.
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        hwm_reset = True
    except OSError:
        hwm_reset = False
    t0 = time.perf_counter()
    grads = step()
    t = time.perf_counter() - t0
    after = _rss_now_kb()
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KB on Linux
    hwm = after.get("VmHWM", maxrss)
    peak = max(hwm, base.get("VmHWM", 0))
    print(
        json.dumps(
            {
                "time_s": t,
                "ops": ops,
                "rss_peak_kb": peak,
                "rss_base_kb": base.get("VmRSS", 0),
                "rss_delta_kb": max(hwm - base.get("VmRSS", 0), 0),
                "hwm_reset": hwm_reset,
                "ru_maxrss_kb": maxrss,
                "grads": [lib.to_numpy(g).tolist() if lib.is_engine else g.tolist() for g in grads],
            }
        )
    )
    return 0


def _spawn_child(lib_name: str, ops: int, timeout: float) -> dict[str, Any]:
    cmd = [
        sys.executable,
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "run.py"),
        "--child",
        lib_name,
        "--child-ops",
        str(ops),
    ]
    try:
        p = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    if p.returncode != 0:
        tail = (p.stderr.strip().splitlines() or [""])[-1][:200]
        how = f"signal {-p.returncode}" if p.returncode < 0 else f"exit {p.returncode}"
        return {"error": f"child failed ({how}): {tail}"}
    try:
        return json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": f"child printed no result: {p.stdout[-200:]!r}"}


def run_w6(libs: list[Lib], sz: wl.Sizes, timeout: float) -> dict[str, Any]:
    res: dict[str, Any] = {
        "desc": f"{sz.w6_ops:,}-op chain on 1 element, fwd+bwd, one subprocess each",
        "rows": {},
        "unit": "s",
        "notes": [
            (
                "peak RSS: the child's VmHWM, including the interpreter and the library's "
                "import (ru_maxrss is kept in the JSON but inherits the parent's peak, "
                "Note [Peak RSS]); Δ: high-water mark during the chain over the RSS before "
                "it; the RSS target compares Δ"
            )
        ],
    }
    ops = {lib.name: (sz.w6_ref_ops if lib.name == "reference" else sz.w6_ops) for lib in libs}
    oracles: dict[int, list[np.ndarray]] = {}
    live = []
    for lib in libs:
        row = res["rows"][lib.name] = new_row(lib)
        if lib.skip:
            continue
        row.update(size=ops[lib.name], time_s=[], metric=[], rss_peak_kb=[], rss_delta_kb=[])
        if ops[lib.name] != sz.w6_ops:
            row["note"] = (
                f"W6 run at {ops[lib.name]:,} ops for the pure-Python reference "
                "engine (capped); no ratios"
            )
        live.append(lib.name)
    for r in range(sz.w6_repeats):
        for name in rotated(live, r):
            row = res["rows"][name]
            if row.get("error"):
                continue
            out = _spawn_child(name, ops[name], timeout)
            if "error" in out or "skip" in out:
                row["error"] = out.get("error") or out.get("skip")
                continue
            row["time_s"].append(out["time_s"])
            row["metric"].append(out["time_s"])
            row["rss_peak_kb"].append(out["rss_peak_kb"])
            row["rss_delta_kb"].append(out["rss_delta_kb"])
            if "check" not in row and name == "numpy":
                row["check"] = "oracle"
            elif "check" not in row:
                n = ops[name]
                if n not in oracles:
                    oracles[n] = numpy_floor.chain(wl.chain_data(1, n))()
                got = [np.asarray(g, dtype=np.float32) for g in out["grads"]]
                row["check"] = check_grads(libs_mod.Lib("numpy"), got, oracles[n], 1e-3)
    return res


def run_w6_big(libs: list[Lib], sz: wl.Sizes, timeout: float) -> dict[str, Any] | None:
    comp = next((lib for lib in libs if lib.name == "compiled"), None)
    if comp is None:
        return None
    res: dict[str, Any] = {
        "desc": f"{sz.w6_big_ops:,}-op chain, transgrad alone",
        "rows": {"compiled": new_row(comp)},
        "unit": "s",
        "ratios": False,
    }
    row = res["rows"]["compiled"]
    if comp.skip:
        return res
    out = _spawn_child("compiled", sz.w6_big_ops, timeout)
    if "error" in out or "skip" in out:
        row["error"] = out.get("error") or out.get("skip")
        return res
    row.update(
        time_s=[out["time_s"]],
        metric=[out["time_s"]],
        rss_peak_kb=[out["rss_peak_kb"]],
        rss_delta_kb=[out["rss_delta_kb"]],
        size=sz.w6_big_ops,
    )
    return res
