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

Modules: workloads.py (the workloads, written once against the PyTorch-style API, and the
targets), numpy_floor.py (hand-written numpy forward + backward: floor and oracle), libs.py
(thin adapters), measure.py (W1-W5), isolated.py (W6), threads.py (W7), buildtime.py,
startup.py (import time and the first in-place op, issue 10), extension_build.py (the JIT
extension's build and cached load, issue 12), training.py (issue 14's model steps CNN, TLM,
LSTM and the Adam step OPT, against torch, one intra-op thread),
report.py (statistics, the table).

Output: a markdown table on stdout (medians, minima, paired ratios, targets); ``--json`` writes
every raw sample plus the summary.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from typing import Any

import buildtime
import extension_build
import isolated
import libs as libs_mod
import measure
import numpy as np
import report
import startup
import threads
import training
import workloads as wl
from libs import Lib

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
                    f"transgrad (compiled) from {where}; intra-op threads: "
                    f"{lib.intra_op_threads() or '?'}; BLAS: "
                    f"{'; '.join(blas.get('transgrad', ['none loaded']))}"
                )
        elif lib.name == "reference":
            if lib.skip:
                lines.append(f"transgrad.reference: not measured: {lib.skip}")
            else:
                where = os.path.dirname(getattr(lib.m, "__file__", "") or "?")
                lines.append(f"transgrad.reference from {where}: pure Python on numpy")
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


def busy_line(results: dict[str, Any]) -> str:
    """Say how much CPU other processes took while we measured; warn when it was a lot."""
    per = {k: w.get("others_cpu") for k, w in results["workloads"].items()}
    per = {k: v for k, v in per.items() if v is not None}
    if results["meta"]["others_cpu"] is None or not per:
        return "other processes' CPU use: unknown (no /proc/stat)"
    worst = max(per, key=per.__getitem__)
    line = (
        f"other processes used {results['meta']['others_cpu']:.0%} of the CPUs during the run "
        f"(most during {worst}: {per[worst]:.0%})"
    )
    if per[worst] > report.BUSY:
        line = f"**machine busy, timings unreliable**: {line}"
    return line


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
        return isolated.child_main(args.child, args.child_ops)
    profile = "tiny" if args.tiny else "quick" if args.quick else "full"
    sz = wl.PROFILES[profile]
    if args.repeats:
        sz = wl.replace(sz, repeats=args.repeats, w6_repeats=min(args.repeats, sz.w6_repeats))
    keys = wl.ALL_KEYS if not args.only else [k.strip() for k in args.only.split(",")]
    for k in keys:
        if k not in wl.ALL_KEYS:
            raise SystemExit(f"unknown workload {k!r}; choose from {', '.join(wl.ALL_KEYS)}")
    keys = [k for k in wl.ALL_KEYS if k in keys]
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
    whole = libs_mod.CpuMeter()
    for key in keys:
        print(f"[bench] {key} ...", file=sys.stderr, flush=True)
        meter = libs_mod.CpuMeter()
        t_key = time.perf_counter()
        if key in wl.WORKLOADS:
            results["workloads"][key] = measure.run_timed(key, libs, sz)
        elif key == "W6":
            results["workloads"]["W6"] = isolated.run_w6(libs, sz, args.timeout)
            if sz.w6_big_ops:
                big = isolated.run_w6_big(libs, sz, args.timeout)
                if big:
                    results["workloads"]["W6-1M"] = big
        elif key == "W7":
            results["workloads"]["W7"] = threads.run_w7(libs, sz)
        elif key in training.KEYS:
            results["workloads"][key] = training.run_training(key, libs, sz)
        elif key == "build":
            results["workloads"]["build"] = buildtime.run_build(sz, args.build, args.timeout)
        elif key == "startup":
            results["workloads"]["startup"] = startup.run_startup(sz, names, args.timeout)
        elif key == "extension":
            results["workloads"]["extension"] = extension_build.run_extension(sz, args.timeout)
        if key in results["workloads"]:
            results["workloads"][key]["others_cpu"] = meter.others()
            results["workloads"][key]["wall_s"] = time.perf_counter() - t_key
    results["meta"]["wall_s"] = time.perf_counter() - t_start
    results["meta"]["others_cpu"] = whole.others()
    results["meta"]["header"].append(busy_line(results))
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
