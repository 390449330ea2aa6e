"""Driver of the hostile battery: runs hostile_cases.py on an engine in child processes
(_runner.py) and classifies each case against torch.

Note [Hostile battery verdicts]
A case's outcome on an engine is ``ok`` (with a summary of the value), ``error`` (a Python
exception: type and first line), ``crash`` (the process died: segfault, abort) or ``hang`` (no
answer within the timeout). Against torch's outcome:
  - crash or hang: always a failure;
  - torch ok, engine ok: the values must agree (dtype, shape, every element; NaN equals NaN,
    floats to the dtype's precision);
  - torch ok, engine error: allowed (a clean refusal of something torch can do is a missing
    feature, not a fault), listed by ``python tests/hostile/hostile_battery.py``;
  - torch error, engine ok: a failure (a silent answer where torch refuses: the class of
    wrapped indices and unchecked sizes), unless test_battery.py's EXTENSIONS names it with a
    reason;
  - both error: a pass (the texts are checked by the tests written for each fix).
Running the cases in children keeps pytest alive through a crash: a child prints a START line
before each case and a RESULT line after it, so the case that killed it is known, and a new child
takes over from the next case.
"""

import json
import math
import os
import pathlib
import queue
import subprocess
import sys
import threading

HERE = pathlib.Path(__file__).parent
RUNNER = HERE / "_runner.py"


def _reader(stream, q):
    for line in stream:
        q.put(line)
    q.put(None)


def _drain(stream, into):
    into.append(stream.read())


def run_cases(engine, ids, timeout=120.0, extra=None):
    """{id: outcome} for the cases `ids` on `engine` ("torch", "transgrad",
    "transgrad.reference"); ``extra``: cases beyond hostile_cases.py (id -> code)."""
    results = {}
    pending = list(ids)
    path = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path, TG_HOSTILE_EXTRA_CASES=json.dumps(extra or {}))
    while pending:
        proc = subprocess.Popen([sys.executable, str(RUNNER), engine, *pending],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env)
        q = queue.Queue()
        threading.Thread(target=_reader, args=(proc.stdout, q), daemon=True).start()
        err: list = []
        threading.Thread(target=_drain, args=(proc.stderr, err), daemon=True).start()
        current = None
        while True:
            try:
                line = q.get(timeout=timeout)
            except queue.Empty:
                proc.kill()
                proc.wait()
                results[current or pending[0]] = ["hang"]
                break
            if line is None:
                proc.wait()
                if current is not None:
                    results[current] = ["crash", proc.returncode]
                elif pending and pending[0] not in results:  # died before its first case
                    raise RuntimeError(f"battery child for {engine} failed: {''.join(err)[-3000:]}")
                break
            kind, cid, *rest = line.rstrip("\n").split(" ", 2)
            if kind == "START":
                current = cid
            elif kind == "RESULT":
                results[cid] = json.loads(rest[0])
                current = None
        pending = [i for i in ids if i not in results]
    return results


TOL = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-5}


def _same_number(a, b, rtol):
    if isinstance(a, str) or isinstance(b, str):  # 'nan', 'inf', '-inf'
        return a == b
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, int) and isinstance(b, int):
        return a == b
    return math.isclose(a, b, rel_tol=rtol, abs_tol=rtol)


def same_value(a, b):
    """Whether two value summaries (see _runner.summary) describe the same answer."""
    if a[0] != b[0]:
        return False
    if a[0] == "tensor":
        _, dtype, shape, flat = a
        if b[1] != dtype or b[2] != shape or len(b[3]) != len(flat):
            return False
        rtol = TOL.get(dtype, 1e-12)
        return all(_same_number(x, y, rtol) for x, y in zip(flat, b[3]))
    if a[0] == "seq":
        return len(a[1]) == len(b[1]) and all(same_value(x, y) for x, y in zip(a[1], b[1]))
    if a[0] == "scalar":
        return _same_number(a[1], b[1], 1e-12)
    return a == b


def verdict(torch_out, out):
    """(passed, why) for one engine's outcome against torch's (Note [Hostile battery verdicts])."""
    if out[0] in ("crash", "hang"):
        return False, f"{out[0]} {out[1:]}"
    if torch_out[0] == "ok":
        if out[0] == "ok":
            return (same_value(torch_out[1], out[1]),
                    f"torch {torch_out[1]} vs {out[1]}")
        return True, f"refused where torch answers: {out[1]}: {out[2]}"
    if out[0] == "ok":
        return False, f"answered {out[1]} where torch raises {torch_out[1]}: {torch_out[2]}"
    return True, "both raise"


def main():
    import hostile_cases as cases

    ids = sys.argv[1:] or list(cases.CASES)
    outcomes = {e: run_cases(e, ids) for e in ("torch", "transgrad", "transgrad.reference")}
    for cid in ids:
        t = outcomes["torch"][cid]
        for e in ("transgrad", "transgrad.reference"):
            ok, why = verdict(t, outcomes[e][cid])
            if not ok or "refused" in why:
                print(f"{'FAIL' if not ok else 'gap '} {e:20} {cid}: {why}"[:400])


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
