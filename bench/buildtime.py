"""build: time to translate every formula module, and with ``--build`` a full wheel build and
an incremental rebuild after touching one formula module.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

import workloads as wl
from libs import REPO


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
        lines = (p.stdout + "\n" + p.stderr).strip().splitlines()
        return {
            "error": f"`{' '.join(cmd[:5])} ...` exit {p.returncode}: {_first_error(lines)}",
            "log_tail": lines[-40:],
        }
    # ninja's progress lines ("[3/12] Building CXX object ...") say what was recompiled
    out = p.stdout + "\n" + p.stderr
    compiled = re.findall(r"^\s*\[\d+/\d+\] Building CXX object", out, re.MULTILINE)
    return {"time_s": t, "cxx_compiled": len(compiled), "log_tail": out.splitlines()[-40:]}


def _first_error(lines: list[str]) -> str:
    """The line that says what went wrong (a compiler/CMake/Python error), not pip's summary."""
    generic = ("ERROR: Failed to build", "ERROR: Failed building", "error: subprocess-exited")
    for line in lines:
        s = line.strip()
        if re.search(r"\berror\b|Error:|Traceback", s, re.IGNORECASE) and not s.startswith(generic):
            return s[:240]
    return lines[-1][:240] if lines else ""


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
                row.update(r)
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
            "-v",  # the build's output, to count what was recompiled
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
                r = _timed_cmd(cmd, max(timeout, 3600.0))  # a C++ build on 2 cores is slow
                row = res["rows"][name] = {"label": label}
                if "error" in r:
                    row.update(r)
                    break
                row.update(time_s=[r["time_s"]], metric=[r["time_s"]], log_tail=r["log_tail"])
                row["label"] += f", {r['cxx_compiled']} C++ files compiled"
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return res
