"""Child process of the hostile battery (tests/hostile/test_battery.py): runs cases on one
engine (`torch`, `transgrad` or `transgrad.reference`) and prints one line per case.

    python _runner.py ENGINE CASE_ID...

Protocol (stdout, one line each, flushed): ``START id`` before a case and ``RESULT id JSON``
after it. The parent reads them as they come: a case that started and has no RESULT when the
process dies crashed it; one with no line for the parent's timeout hung. The parent then starts
a new child with the cases after it, so one crash costs one case, not the batch.

A case is code from hostile_cases.py (or the JSON object in TG_HOSTILE_EXTRA_CASES, for
the driver's own tests): an expression, or statements that assign ``out``. Names in scope:
``t`` (the engine), ``F`` (its nn.functional), ``nn``, ``optim``, ``data`` (its utils.data), ``np``.
"""

import importlib
import json
import math
import os
import sys
import warnings

import numpy as np


def load(name):
    t = importlib.import_module(name)
    nn = importlib.import_module(name + ".nn")
    return {"t": t, "F": nn.functional, "nn": nn, "optim": importlib.import_module(name + ".optim"),
            "data": importlib.import_module(name + ".utils.data"), "np": np}


def number(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    return v


def summary(v, depth=0):
    """A JSON-able description of a result: the same on every engine for the same answer."""
    if depth > 3:
        return ["deep", type(v).__name__]
    if hasattr(v, "shape") and hasattr(v, "dtype") and hasattr(v, "tolist"):
        x = v.detach() if hasattr(v, "detach") else v
        flat = np.asarray(x.reshape(-1).tolist(), dtype=object).tolist() if x.numel() else []
        return ["tensor", str(x.dtype).replace("torch.", ""), list(x.shape),
                [number(e) for e in flat]]
    if isinstance(v, (tuple, list)):
        return ["seq", [summary(e, depth + 1) for e in v]]
    if isinstance(v, (bool, int, float)):
        return ["scalar", number(v)]
    if v is None:
        return ["none"]
    return ["object", type(v).__name__]


def run(env, code):
    scope = dict(env)
    if "\n" in code or code.lstrip().startswith(("out =", "out=")) or "; " in code:
        exec(code, scope)
        return scope["out"]
    return eval(code, scope)


def main():
    from hostile_cases import CASES  # noqa: PLC0415  (beside this file)

    CASES = {**CASES, **json.loads(os.environ.get("TG_HOSTILE_EXTRA_CASES", "{}"))}

    engine, ids = sys.argv[1], sys.argv[2:]
    env = load(engine)
    warnings.simplefilter("ignore")
    for cid in ids:
        print("START", cid, flush=True)
        try:
            if hasattr(env["t"], "manual_seed"):
                env["t"].manual_seed(0)
            res = ["ok", summary(run(env, CASES[cid]))]
        except Exception as e:  # noqa: BLE001  (the verdict is the exception itself)
            msg = str(e).strip().splitlines()
            res = ["error", type(e).__name__, msg[0] if msg else ""]
        print("RESULT", cid, json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
