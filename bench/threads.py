"""W7: two Python threads running the W2 chain vs one thread.

speedup = 2 × t(one thread, k steps) / t(two threads, k steps each, own data). A library with an
intra-op pool (torch, transgrad) is also measured with one intra-op thread, since the pool may
already split a 200k-element op over the cores.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy_floor
import workloads as wl
from libs import Lib
from measure import calibrate, check_grads, err_text, new_row, rotated


def _after(barrier: threading.Barrier, f: Callable[..., Any], *args: Any) -> None:
    barrier.wait()
    f(*args)


def run_w7(libs: list[Lib], sz: wl.Sizes) -> dict[str, Any]:
    res: dict[str, Any] = {
        "desc": f"W2 chain ({sz.w7_ops} ops, {sz.w7_n:,} elements): two Python threads vs one",
        "rows": {},
        "unit": "×",
        "ratios": False,
        "notes": [
            (
                "speedup = 2 × (time of one thread running the step k times) / (wall time "
                "of two threads each running it k times on its own data); median/min "
                "columns: one step on one thread"
            )
        ],
    }
    # a variant: (row key, lib, the two steps, threads to set for torch's intra-op pool or None)
    variants: list[Any] = []
    for lib in libs:
        row = res["rows"][lib.name] = new_row(lib)
        if lib.skip:
            continue
        if lib.name == "reference":
            row["skip"] = "pure Python under the GIL: no speedup to measure"
            continue
        try:
            ds = [wl.chain_data(sz.w7_n, sz.w7_ops, seed=s) for s in (1, 2)]
            pair = (
                [wl.chain(lib, d) for d in ds]
                if lib.is_engine
                else [numpy_floor.chain(d) for d in ds]
            )
            want = numpy_floor.chain(ds[0])()
            row["check"] = check_grads(lib, pair[0](), want, 1e-3) if lib.is_engine else "oracle"
            pair[1]()
            row.update(
                time_s=[],
                metric=[],
                two_s=[],
                k=max(sz.w7_steps, calibrate(pair[0], sz.min_sample_s)),
            )
            variants.append((lib.name, lib, pair, None))
            if lib.intra_op_threads() not in (None, 1):
                # the library already splits a 200k-element op over its intra-op pool; the same
                # measurement with one intra-op thread shows what Python threads alone give
                key = f"{lib.name}-1t"
                res["rows"][key] = dict(
                    row, label=f"{lib.label}, 1 intra-op thread", time_s=[], metric=[], two_s=[]
                )
                variants.append((key, lib, pair, 1))
        except Exception as e:  # noqa: BLE001
            row["error"] = f"failed: {err_text(e)}"

    def loop(step: Callable[[], Any], k: int) -> None:
        for _ in range(k):
            step()

    for r in range(sz.repeats):
        for key, lib, (s1, s2), threads in rotated(variants, r):
            row = res["rows"][key]
            k = row["k"]
            saved = lib.intra_op_threads()
            if threads is not None:
                lib.set_intra_op_threads(threads)
            try:
                gc.collect()
                t0 = time.perf_counter()
                loop(s1, k)
                one = time.perf_counter() - t0
                gc.collect()
                barrier = threading.Barrier(3)
                ths = [
                    threading.Thread(target=_after, args=(barrier, loop, s, k)) for s in (s1, s2)
                ]
                for th in ths:
                    th.start()
                barrier.wait()
                t0 = time.perf_counter()
                for th in ths:
                    th.join()
                two = time.perf_counter() - t0
            finally:
                if threads is not None:
                    lib.set_intra_op_threads(saved)
            row["time_s"].append(one / k)
            row["two_s"].append(two / k)
            row["metric"].append(2 * one / two)
    return res
