"""Side-by-side benchmarks of issue 6: transgrad (compiled), transgrad.reference, numpy with a
hand-written backward (the floor) and torch, in one process, interleaved.

    python bench/run.py [--quick] [--json out.json] [--only W1,W3] [--libs compiled,numpy,torch]
                        [--build]

Method. For each workload every library first runs once and its gradients are compared with
the numpy floor's (a mismatch is marked in the table, the row is still timed). Then the
libraries are timed round-robin: repeat r runs A B C D, repeat r+1 starts one library later,
so every library sees the same machine state and ratios can be paired (Note [Paired ratios]
in report.py). One sample loops the step until it lasts at least ``min_sample_s`` and records
the time per step; the garbage collector is off during a sample and run before it.
W6 runs each library in a fresh subprocess (this script with a hidden ``--child`` flag) so
that peak RSS is the library's own; W7 times one Python thread against two; ``build`` times
the translator and, with ``--build``, a full wheel build and a rebuild after touching one
formula module.

Output: a markdown table on stdout (medians, minima, paired ratios, targets); ``--json`` writes
every raw sample plus the summary.
"""

from __future__ import annotations

import argparse
import gc
import glob
import json
import math
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

import libs as libs_mod
import numpy as np
import numpy_floor
import report
import workloads as wl
from libs import REPO, Lib

# ---------------------------------------------------------------------------------------------
# Timing


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


def _err(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    return f"{type(e).__name__}: {msg[0] if msg else ''}"[:300]


def _row(lib: Lib) -> dict[str, Any]:
    row: dict[str, Any] = {"label": lib.label}
    if lib.skip:
        row["skip"] = lib.skip
    return row


# ---------------------------------------------------------------------------------------------
# W1-W5: in-process, interleaved


def run_timed(key: str, libs: list[Lib], sz: wl.Sizes) -> dict[str, Any]:
    w = wl.WORKLOADS[key]
    res: dict[str, Any] = {"desc": w.describe(sz), "rows": {}, "notes": []}
    steps: dict[str, Callable[[], Any]] = {}
    inner: dict[str, int] = {}
    datas: dict[str, dict[str, Any]] = {}
    for lib in libs:
        row = res["rows"][lib.name] = _row(lib)
        if lib.skip:
            continue
        d = datas[lib.name] = wl.make_data(key, sz, lib.name)
        row["size"] = int(d["x"].size) if "x" in d else None
        if row["size"] != (wl.make_data(key, sz)["x"].size if "x" in d else None):
            row["note"] = f"{key} run at {row['size']:,} elements for this library (capped)"
        try:
            want = w.floor(wl.make_data(key, sz, lib.name))()
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
            row["error"] = f"failed: {_err(e)}"
    order = [n for n in libs_mod.ALL_LIBS if n in steps]
    unit = ""
    for r in range(sz.repeats):
        for name in rotated(order, r):
            t = time_sample(steps[name], inner[name])
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


# ---------------------------------------------------------------------------------------------
# W6: long chains, one subprocess per library and repeat


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
    cmd = [sys.executable, os.path.abspath(__file__), "--child", lib_name, "--child-ops", str(ops)]
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
        row = res["rows"][lib.name] = _row(lib)
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
        "rows": {"compiled": _row(comp)},
        "unit": "s",
        "ratios": False,
    }
    row = res["rows"]["compiled"]
    if comp.skip:
        return res
    out = _spawn_child("compiled", sz.w6_big_ops, timeout)
    if "error" in out:
        row["error"] = out["error"]
        return res
    row.update(
        time_s=[out["time_s"]],
        metric=[out["time_s"]],
        rss_peak_kb=[out["rss_peak_kb"]],
        rss_delta_kb=[out["rss_delta_kb"]],
        size=sz.w6_big_ops,
    )
    return res


# ---------------------------------------------------------------------------------------------
# W7: one Python thread vs two


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
        row = res["rows"][lib.name] = _row(lib)
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
            if lib.name == "torch" and libs_mod.cores() > 1:
                # torch splits a 200k-element op over its intra-op pool already; the same
                # measurement with one intra-op thread shows what Python threads alone give
                res["rows"]["torch-1t"] = dict(
                    row, label="torch, set_num_threads(1)", time_s=[], metric=[], two_s=[]
                )
                variants.append(("torch-1t", lib, pair, 1))
        except Exception as e:  # noqa: BLE001
            row["error"] = f"failed: {_err(e)}"

    def loop(step: Callable[[], Any], k: int) -> None:
        for _ in range(k):
            step()

    for r in range(sz.repeats):
        for key, lib, (s1, s2), threads in rotated(variants, r):
            row = res["rows"][key]
            k = row["k"]
            if threads is not None:
                lib.m.set_num_threads(threads)
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
                    lib.m.set_num_threads(libs_mod.cores())
            row["time_s"].append(one / k)
            row["two_s"].append(two / k)
            row["metric"].append(2 * one / two)
    return res


# ---------------------------------------------------------------------------------------------
# build: translator time; with --build, a full wheel build and an incremental rebuild


def formula_modules() -> list[str]:
    return sorted(
        p
        for p in glob.glob(os.path.join(REPO, "formulas", "*.py"))
        if os.path.basename(p) != "__init__.py"
    )


def _timed_cmd(cmd: list[str], timeout: float) -> dict[str, Any]:
    t0 = time.perf_counter()
    try:
        p = subprocess.run(
            cmd, check=False, cwd=REPO, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    t = time.perf_counter() - t0
    if p.returncode != 0:
        tail = (p.stderr.strip() or p.stdout.strip()).splitlines()
        return {
            "error": f"`{' '.join(cmd[:5])} ...` exit {p.returncode}: "
            f"{tail[-1][:200] if tail else ''}"
        }
    return {"time_s": t}


def run_build(sz: wl.Sizes, full_build: bool, timeout: float) -> dict[str, Any]:
    mods = formula_modules()
    res: dict[str, Any] = {
        "desc": f"translate {len(mods)} formula modules",
        "rows": {},
        "unit": "s",
        "ratios": False,
        "notes": [],
    }
    rel = [os.path.relpath(p, REPO) for p in mods]
    row = res["rows"]["translate"] = {
        "label": "python -m translator emit",
        "time_s": [],
        "metric": [],
    }
    if not mods:
        row["skip"] = "no formula modules in formulas/ yet"
    else:
        for _ in range(sz.build_repeats):
            with tempfile.TemporaryDirectory() as out:
                r = _timed_cmd(
                    [sys.executable, "-m", "translator", "emit", *rel, "--out", out], timeout
                )
            if "error" in r:
                row["error"] = r["error"]
                break
            row["time_s"].append(r["time_s"])
            row["metric"].append(r["time_s"])
    if full_build:
        res["notes"].append(
            "full build: `pip wheel . --no-build-isolation --no-deps -C "
            "build-dir=<tmp>/build -w <tmp>/wheel` in a fresh build dir; "
            "rebuild: the same command after os.utime() on one formula module "
            "(translator re-runs; files whose content is unchanged are not "
            "rewritten, so only what depends on changed output recompiles)"
        )
        tmp = tempfile.mkdtemp(prefix="tg-bench-build-")
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            ".",
            "--no-build-isolation",
            "--no-deps",
            "-q",
            "-C",
            f"build-dir={tmp}/build",
            "-w",
            f"{tmp}/wheel",
        ]
        try:
            for name, label in (
                ("full", "full build (pip wheel)"),
                ("rebuild", "rebuild after touching one module"),
            ):
                if name == "rebuild" and mods:
                    os.utime(mods[0])
                    label += f" ({os.path.relpath(mods[0], REPO)})"
                r = _timed_cmd(cmd, timeout)
                res["rows"][name] = {
                    "label": label,
                    **(
                        {"error": r["error"]}
                        if "error" in r
                        else {"time_s": [r["time_s"]], "metric": [r["time_s"]]}
                    ),
                }
                if "error" in r:
                    break
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return res


# ---------------------------------------------------------------------------------------------
# Header and main


def header(libs: list[Lib], sz: wl.Sizes, profile: str) -> list[str]:
    blas = libs_mod.blas_info()
    lines = [
        f"machine: {libs_mod.cpu_model()}, {libs_mod.cores()} cores; "
        + f"{platform.system()} {platform.release()}; Python {platform.python_version()}",
        f"numpy {np.__version__}; BLAS: {'; '.join(blas.get('numpy', ['?']))}",
    ]
    for lib in libs:
        if lib.name == "compiled":
            if lib.skip:
                lines.append(f"transgrad (compiled): not measured: {lib.skip}")
            else:
                where = os.path.dirname(getattr(lib.m, "__file__", "") or "?")
                lines.append(
                    f"transgrad (compiled) from {where}; BLAS: "
                    f"{'; '.join(blas.get('transgrad', ['none loaded']))}"
                )
        elif lib.name == "reference":
            lines.append(
                "transgrad.reference: "
                + (
                    f"not measured: {lib.skip}"
                    if lib.skip
                    else "pure Python on numpy (numpy's BLAS)"
                )
            )
        elif lib.name == "torch":
            if lib.skip:
                lines.append(f"torch: not measured: {lib.skip}")
            else:
                cfg = lib.m.__config__.show()
                binfo = next(
                    (
                        p.split("=", 1)[1]
                        for p in cfg.replace(",", "\n").split()
                        if p.startswith("BLAS_INFO=")
                    ),
                    "?",
                )
                lines.append(
                    f"torch {lib.version}: {'; '.join(lib.notes)}; BLAS_INFO={binfo}; "
                    f"loaded: {'; '.join(blas.get('torch', ['(static)']))}"
                )
    lines.append("environment: " + " ".join(f"{k}={v}" for k, v in libs_mod.env_info().items()))
    lines.append(
        f"method: libraries interleaved round-robin, {sz.repeats} repeats "
        f"(W6: {sz.w6_repeats}, one subprocess each), a sample lasts ≥ "
        f"{sz.min_sample_s * 1e3:.0f} ms; × columns are paired time ratios (median "
        "over repeats of this library's time / the baseline's in the same repeat): "
        "below 1 is faster"
    )
    return lines


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--quick", action="store_true", help="fewer repeats and smaller W2/W6 (~30 s)")
    p.add_argument("--tiny", action="store_true", help="toy sizes, for the smoke test")
    p.add_argument("--json", metavar="PATH", help="write raw samples and the summary here")
    p.add_argument("--only", metavar="W1,W3", help=f"subset of {','.join(wl.ALL_KEYS)}")
    p.add_argument(
        "--libs",
        metavar="LIBS",
        default=",".join(libs_mod.ALL_LIBS),
        help="subset of compiled,reference,numpy,torch (default: all available)",
    )
    p.add_argument(
        "--build",
        action="store_true",
        help="also time a full wheel build and an incremental rebuild",
    )
    p.add_argument("--repeats", type=int, help="override the profile's repeat count")
    p.add_argument("--timeout", type=float, default=600.0, help="per subprocess, seconds")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--child-ops", type=int, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        return child_main(args.child, args.child_ops)
    profile = "tiny" if args.tiny else "quick" if args.quick else "full"
    sz = wl.PROFILES[profile]
    if args.repeats:
        sz = wl.replace(sz, repeats=args.repeats, w6_repeats=min(args.repeats, sz.w6_repeats))
    keys = wl.ALL_KEYS if not args.only else [k.strip() for k in args.only.split(",")]
    for k in keys:
        if k not in wl.ALL_KEYS:
            raise SystemExit(f"unknown workload {k!r}; choose from {', '.join(wl.ALL_KEYS)}")
    names = [n.strip() for n in args.libs.split(",") if n.strip()]
    libs = [libs_mod.load(n) for n in libs_mod.ALL_LIBS if n in names]
    for n in names:
        if n not in libs_mod.ALL_LIBS:
            raise SystemExit(f"unknown library {n!r}; choose from {', '.join(libs_mod.ALL_LIBS)}")
    t_start = time.perf_counter()
    results: dict[str, Any] = {
        "meta": {
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "profile": profile,
            "sizes": wl.dataclasses.asdict(sz),
            "libs": names,
            "env": libs_mod.env_info(),
            "blas": libs_mod.blas_info(),
            "header": header(libs, sz, profile),
        },
        "workloads": {},
    }
    for key in keys:
        print(f"[bench] {key} ...", file=sys.stderr, flush=True)
        if key in wl.WORKLOADS:
            results["workloads"][key] = run_timed(key, libs, sz)
        elif key == "W6":
            results["workloads"]["W6"] = run_w6(libs, sz, args.timeout)
            if sz.w6_big_ops:
                big = run_w6_big(libs, sz, args.timeout)
                if big:
                    results["workloads"]["W6-1M"] = big
        elif key == "W7":
            results["workloads"]["W7"] = run_w7(libs, sz)
        elif key == "build":
            results["workloads"]["build"] = run_build(sz, args.build, args.timeout)
    results["meta"]["wall_s"] = time.perf_counter() - t_start
    report.summarize(results)
    text = report.markdown(results)
    print(text)
    print(f"(total {results['meta']['wall_s']:.1f} s)", file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
