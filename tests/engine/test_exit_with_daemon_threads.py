"""The interpreter exits cleanly while daemon threads are inside a kernel, a backward, a Python
hook or a Function's backward (Note [Re-taking the GIL at exit] and Note [Threads at exit] in
csrc/python/common.h): no abort, no "terminate called", no segfault. Each case runs in a
subprocess that starts the threads, lets them work, and returns from the main module.

The segfault of issue 11 came about one run in twenty to one in four, depending on the load, so
each mode runs several processes at once (which is also the load that brought it out)."""

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import sys, threading, time
    import {module} as tg
    mode = sys.argv[1]
    ready = threading.Barrier(4)

    class Twice(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2.0

        @staticmethod
        def backward(ctx, g):
            return g * 2.0

    def work():
        x = tg.randn(300, 300, requires_grad=True)
        ready.wait()
        while True:
            if mode == "kernel":  # large ops release the GIL (Note [GIL in forward ops])
                (x @ x).sum()
            elif mode == "backward":
                (x @ x).tanh().sum().backward()
            elif mode == "hook":  # a Python hook inside backward takes the GIL from the engine
                y = (x @ x).tanh()
                y.register_hook(lambda g: g * 1.0)
                y.sum().backward()
            elif mode == "function":  # a Python Function's backward, called by the engine
                Twice.apply(x @ x).sum().backward()
            else:  # LAPACK and BLAS both, outside autograd
                tg.linalg.solve(x.detach() + 300 * tg.eye(300), x.detach())

    for _ in range(3):
        threading.Thread(target=work, daemon=True).start()
    ready.wait()
    time.sleep(0.3)
    print("exiting", flush=True)
""")

RUNS = 4  # processes per mode, started together


@pytest.mark.parametrize("mode", ["kernel", "backward", "hook", "function", "linalg"])
def test_exit_while_daemon_threads_compute(engine, mode):
    module = engine.__name__  # transgrad or transgrad.reference
    code = SCRIPT.format(module=module)
    for _ in range(2):  # two rounds of RUNS processes: the crash depended on timing
        procs = [subprocess.Popen([sys.executable, "-c", code, mode], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(RUNS)]
        for proc in procs:
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, (mode, proc.returncode, err[-2000:])
            assert "terminate called" not in err
            assert out.strip() == "exiting"
