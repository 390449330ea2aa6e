"""Deep graphs on both engines (issue 4, item 8): a long chain goes forward, backward and is
freed without recursion — neither the engine's graph walks nor the freeing of the nodes may use
stack in proportion to the depth. The default run uses chains far deeper than Python's
recursion limit; the `slow` tests run the million-node chain in a fresh interpreter (a stack
overflow there fails the test instead of killing pytest) and check that every node is freed."""

import gc
import os
import subprocess
import sys
import textwrap
import weakref

import pytest

# Deep enough that any recursion (Python's limit is 1000 frames) would fail.
SHORT = {"reference": 5_000, "compiled": 100_000}


def chain(tg, n, saved_input=True):
    one = tg.tensor(1.0, dtype=tg.float64)
    x = tg.tensor(2.0, dtype=tg.float64, requires_grad=True)
    y = x
    for _ in range(n):
        y = tg.ops.mul(y, one) if saved_input else tg.ops.add(y, one)
    return x, y


def engine_name(tg):
    return "reference" if "reference" in tg.__name__ else "compiled"


def test_deep_chain_backward_and_free(engine):
    tg = engine
    n = SHORT[engine_name(tg)]
    x, y = chain(tg, n)
    y.backward()
    assert x.grad.item() == 1.0
    node = weakref.ref(y.grad_fn)
    del y
    gc.collect()
    assert node() is None


def test_deep_chain_freed_without_backward(engine):
    tg = engine
    n = SHORT[engine_name(tg)]
    x, y = chain(tg, n)  # saved tensors hold the chain too
    node = weakref.ref(y.grad_fn)
    del y
    gc.collect()
    assert node() is None


def test_deep_chain_grad_with_create_graph(engine):
    tg = engine
    n = SHORT[engine_name(tg)] // 5
    x = tg.tensor(1.0, dtype=tg.float64, requires_grad=True)
    y = x
    for _ in range(n):
        y = tg.ops.mul(y, x)  # x ** (n + 1)
    (g,) = tg.autograd.grad(y, x, create_graph=True)
    assert g.item() == n + 1
    (g2,) = tg.autograd.grad(g, x)
    assert g2.item() == (n + 1) * n


MILLION = """
    import gc, time, weakref
    import {module} as tg
    n = 1_000_000
    one = tg.tensor(1.0, dtype=tg.float64)
    x = tg.tensor(2.0, dtype=tg.float64, requires_grad=True)
    for run_backward in (True, False):
        y = x
        for _ in range(n):
            y = tg.ops.mul(y, one)   # saves y: each node reaches the previous one twice
        last = weakref.ref(y.grad_fn)
        first = weakref.ref(y.grad_fn)
        node = y.grad_fn
        while node.next_functions[0][0] is not None and node.next_functions[0][0].name() != \\
                "AccumulateGrad":
            node = node.next_functions[0][0]
        first = weakref.ref(node)
        del node
        if run_backward:
            y.backward()
            assert x.grad.item() == 1.0, x.grad.item()
        del y
        gc.collect()
        assert last() is None and first() is None, "the chain was not freed"
    print("ok")
"""


@pytest.mark.slow
def test_million_node_chain(engine):
    module = "transgrad.reference" if engine_name(engine) == "reference" else "transgrad"
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(MILLION.format(module=module))],
                          capture_output=True, text=True, timeout=3600, check=False,
                          env=dict(os.environ))
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr[-3000:]}"
    assert "ok" in proc.stdout
