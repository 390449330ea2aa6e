"""build: time to translate every formula module; with ``--build``, in a copy of the working
tree, a full wheel build and two incremental rebuilds: after touching one formula module (mtime
only) and after editing it (a comment line at the top). Each build row says how many C++ files
ninja compiled.
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


def _timed_cmd(cmd: list[str], timeout: float, cwd: str = REPO) -> dict[str, Any]:
    t0 = time.perf_counter()
    try:
        p = subprocess.run(
            cmd, check=False, cwd=cwd, capture_output=True, text=True, timeout=timeout
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
    compiled = re.findall(r"^\s*\[\d+/\d+\] Building CXX object (\S+)", out, re.MULTILINE)
    return {
        "time_s": t,
        "cxx_compiled": len(compiled),
        "cxx_files": compiled,
        "log_tail": out.splitlines()[-40:],
    }


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
        res["rows"].update(_wheel_builds(mods, timeout))
        res["notes"].append(
            "builds run in a copy of the working tree (so concurrent edits cannot leak into "
            "the rebuild): `pip wheel . --no-build-isolation --no-deps -v -C "
            "build-dir=<tmp>/build -w <tmp>/wheel`, first in a fresh build dir, then again "
            "after os.utime() on one formula module (the translator re-runs and rewrites only "
            "changed files), then after adding a comment line at the top of that module (its "
            "line numbers shift, so its generated .cpp changes)"
        )
    return res


def _wheel_builds(mods: list[str], timeout: float) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    tmp = tempfile.mkdtemp(prefix="tg-bench-build-")
    src = os.path.join(tmp, "src")
    shutil.copytree(
        REPO, src, ignore=shutil.ignore_patterns(".git", "build", "__pycache__", "*.so", ".*cache")
    )
    cmd = [
        *(sys.executable, "-m", "pip", "wheel", ".", "--no-build-isolation", "--no-deps"),
        "-v",  # the build's output, to count what was recompiled
        *("-C", f"build-dir={tmp}/build", "-w", f"{tmp}/wheel"),
    ]
    target = os.path.join(src, os.path.relpath(mods[0], REPO)) if mods else None
    steps = [("full", "full build (pip wheel)")]
    if target:
        rel = os.path.relpath(target, src)
        steps += [
            ("touch", f"rebuild after touching {rel} (mtime only)"),
            ("edit", f"rebuild after adding a comment line to {rel}"),
        ]
    try:
        for name, label in steps:
            if name == "touch":
                os.utime(target)
            elif name == "edit":
                with open(target) as f:
                    text = f.read()
                with open(target, "w") as f:
                    f.write("# edited by bench/run.py --build\n" + text)
            r = _timed_cmd(cmd, max(timeout, 3600.0), cwd=src)  # a C++ build on 2 cores is slow
            row = rows[name] = {"label": label}
            if "error" in r:
                row.update(r)
                break
            row.update(time_s=[r["time_s"]], metric=[r["time_s"]])
            row.update(log_tail=r["log_tail"], cxx_files=r["cxx_files"])
            row["label"] += f", {r['cxx_compiled']} C++ files compiled"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows
