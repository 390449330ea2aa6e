"""Ops in a forked child (#11): fork() copies only the calling thread, so the compiled engine's
thread pool is rebuilt in the child (Note [Pool after fork] in csrc/tensor/parallel.cpp): its
workers do not exist there, and a pool lock one of them held at the fork would never be
released. Checked with os.fork directly and with utils.data.DataLoader(num_workers=2) whose
dataset runs multithreaded kernels and a backward, each in a subprocess with a timeout, so a hang
fails the test instead of hanging the suite; on both engines. (main's pool survived these
scenarios too, because the calling thread runs every unclaimed chunk itself; the lock case is
a race no test makes deterministic.)"""

import os
import subprocess
import sys
import textwrap

import pytest
import transgrad

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

PRELUDE = """
import os, sys
import numpy as np
if {engine!r} == "reference":
    import transgrad.reference as tg
else:
    import transgrad as tg
    tg.set_num_threads(2)  # a pool with a worker thread, used by the large kernels below
big = tg.ones(2_000_000, dtype=tg.float64)
assert big.sum().item() == 2_000_000.0  # the parent has used its pool before forking
"""

DIRECT = """
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    x = tg.ones(2_000_000, dtype=tg.float64, requires_grad=True)
    y = (x * 3).sum()
    y.backward()
    os.write(w, f"{y.item()} {x.grad.sum().item()}".encode())
    os._exit(0)
os.close(w)
got = os.read(r, 100).decode()
_, status = os.waitpid(pid, 0)
assert status == 0, status
assert got == "6000000.0 6000000.0", got
print("ok")
"""

LOADER = """
from transgrad.utils.data import DataLoader, Dataset

class Squares(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        x = tg.full((500_000,), float(i), dtype=tg.float64)
        return (x * x).sum()  # a multithreaded reduction inside the worker

loader = DataLoader(Squares(), batch_size=2, num_workers=2)
got = [float(v) for batch in loader for v in batch.tolist()]
assert got == [500_000.0 * i * i for i in range(6)], got
print("ok")
"""


def _run(engine, body):
    name = "reference" if engine.__name__ == "transgrad.reference" else "compiled"
    code = textwrap.dedent(PRELUDE.format(engine=name)) + textwrap.dedent(body)
    env = dict(os.environ)  # the child imports the transgrad this test imported
    where = os.path.dirname(os.path.dirname(os.path.abspath(transgrad.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (where, env.get("PYTHONPATH")) if p)
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=240, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail("the forked child hung (its thread pool was not rebuilt)")
    assert p.returncode == 0 and p.stdout.strip().endswith("ok"), p.stderr[-3000:]


@pytest.mark.parametrize("body", [DIRECT, LOADER], ids=["os.fork", "DataLoader"])
def test_ops_in_a_forked_child(engine, body):
    _run(engine, body)
