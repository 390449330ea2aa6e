"""The interpreter exits cleanly while daemon threads are inside a kernel or a backward (Note
[Re-taking the GIL at exit] in csrc/python/common.h): no abort, no "terminate called". Each case
runs in a subprocess that starts the threads, lets them work, and returns from the main module."""

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import sys, threading, time
    import {module} as tg
    mode = sys.argv[1]
    ready = threading.Barrier(4)

    def work():
        x = tg.randn(300, 300, requires_grad=True)
        ready.wait()
        while True:
            if mode == "kernel":  # large ops release the GIL (Note [GIL in forward ops])
                (x @ x).sum()
            elif mode == "backward":
                (x @ x).tanh().sum().backward()
            else:  # a Python hook inside backward takes the GIL from the engine
                y = (x @ x).tanh()
                y.register_hook(lambda g: g * 1.0)
                y.sum().backward()

    for _ in range(3):
        threading.Thread(target=work, daemon=True).start()
    ready.wait()
    time.sleep(0.3)
    print("exiting", flush=True)
""")


# Known crash (issue 11, open): on the compiled engine an exit while daemon threads compute still
# segfaults now and then (seen in the hook mode about one run in four under load, once in another
# mode); not strict, so it passes as xpass when it does not crash, and the reference engine stays
# strictly tested. Note [Re-taking the GIL at exit] covers the abort this test was written for.
_EXIT_CRASH = pytest.mark.xfail(strict=False, reason="compiled engine: exit while daemon threads "
                                "compute segfaults intermittently (issue 11)")


@pytest.mark.parametrize("mode", ["kernel", "backward", "hook"])
def test_exit_while_daemon_threads_compute(engine, mode, request):
    if engine.__name__ == "transgrad":
        request.applymarker(_EXIT_CRASH)
    module = engine.__name__  # transgrad or transgrad.reference
    for _ in range(3):  # the abort depended on timing: several exits
        proc = subprocess.run([sys.executable, "-c", SCRIPT.format(module=module), mode],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
        assert "terminate called" not in proc.stderr
        assert proc.stdout.strip() == "exiting"
