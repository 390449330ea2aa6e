"""Startup: ``import`` of each library and its first in-place op, in a fresh interpreter each.

Issue 10 asks that ``import transgrad`` and the first recorded in-place op of the compiled
engine run without the translator (libcst): the in-place verdicts come from the build's
``transgrad/_formula_facts.py``. Each sample is a new ``python -c`` process that times, with
``time.perf_counter`` inside the process, the import and then
``x = ones(3, requires_grad=True) * 1; x.exp_()``, and reports whether libcst got imported.
Rows alternate between libraries, sample by sample, so ratios can be paired.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import workloads as wl

_CHILD = """
import json, sys, time
t0 = time.perf_counter()
import {module} as lib
t1 = time.perf_counter()
x = lib.ones(3, requires_grad=True) * 1
t2 = time.perf_counter()
x.exp_()
t3 = time.perf_counter()
print(json.dumps({{"import_s": t1 - t0, "inplace_s": t3 - t2,
                  "libcst": "libcst" in sys.modules}}))
"""

LIBS = (("compiled", "transgrad"), ("reference", "transgrad.reference"), ("torch", "torch"))


def _sample(module: str, timeout: float) -> dict[str, Any]:
    r = subprocess.run([sys.executable, "-c", _CHILD.format(module=module)],
                       capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        return {"error": (r.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def run_startup(sz: wl.Sizes, names: list[str], timeout: float) -> dict[str, Any]:
    res: dict[str, Any] = {
        "desc": "import, then the first in-place op (x.exp_()), fresh process",
        "rows": {},
        "unit": "ms first x.exp_()",
        "ratios": True,
        "notes": [],
    }
    libs = [(n, m) for n, m in LIBS if n in names]
    for n, _ in libs:
        res["rows"][n] = {"label": n if n != "compiled" else "transgrad", "time_s": [],
                          "metric": [], "libcst": []}
    for _ in range(max(3, sz.build_repeats)):
        for n, m in libs:
            row = res["rows"][n]
            if row.get("skip") or row.get("error"):
                continue
            s = _sample(m, timeout)
            if "error" in s:
                row["skip" if n == "torch" else "error"] = s["error"]
                continue
            row["time_s"].append(s["import_s"])
            row["metric"].append(s["inplace_s"] * 1e3)
            row["libcst"].append(s["libcst"])
    for n, _ in libs:
        row = res["rows"][n]
        if row["libcst"] and n != "torch":
            row["note"] = ("libcst imported" if any(row["libcst"]) else "libcst not imported")
    res["notes"].append("median/min are the import time; the metric is the first in-place op")
    return res
