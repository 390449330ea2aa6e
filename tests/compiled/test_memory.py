"""Freeing in the compiled engine: backward without retain_graph frees saved tensors at once,
graphs are freed when their last output goes (no reference cycles through saved outputs), and a
million-node chain is built, differentiated and destroyed without recursion."""

import gc
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest


def test_backward_frees_saved_tensors(compiled):
    tg = compiled
    w = tg.tensor([1.0, 2.0, 3.0], dtype=tg.float64, requires_grad=True)
    arr = np.array([4.0, 5.0, 6.0])
    alive = weakref.ref(arr)
    y = (tg.from_numpy(arr) * w).sum()  # MulBackward0 saves the wrapped array
    del arr
    gc.collect()
    assert alive() is not None, "the graph should keep the saved input alive"
    y.backward()
    gc.collect()
    assert alive() is None, "backward without retain_graph must free the saved tensors"
    np.testing.assert_allclose(w.grad.detach().numpy(), [4.0, 5.0, 6.0])
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_retain_graph_keeps_saved_tensors(compiled):
    tg = compiled
    w = tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True)
    arr = np.array([3.0, 4.0])
    alive = weakref.ref(arr)
    y = (tg.from_numpy(arr) * w).sum()
    del arr
    y.backward(retain_graph=True)
    gc.collect()
    assert alive() is not None
    y.backward()
    np.testing.assert_allclose(w.grad.detach().numpy(), [6.0, 8.0])
    gc.collect()
    assert alive() is None


def test_graph_is_freed_with_its_output(compiled):
    tg = compiled
    live = tg._C._live_node_count
    gc.collect()
    before = live()
    x = tg.tensor(np.linspace(0, 1, 10), requires_grad=True)
    y = x
    for _ in range(100):
        y = y.exp() * 0.5  # exp saves its output: must not form a cycle
    assert live() >= before + 200
    del y
    gc.collect()
    assert live() <= before + 1  # at most x's AccumulateGrad, until x goes too
    del x
    gc.collect()
    assert live() == before


def test_numpy_view_does_not_keep_graph_alive(compiled):
    tg = compiled
    live = tg._C._live_node_count
    gc.collect()
    before = live()
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    y = x.sin() * 2
    a = y.detach().numpy()
    b = y.detach().numpy()
    del x, y
    gc.collect()
    assert live() == before
    np.testing.assert_array_equal(a, b)


def _run(code):
    """Run `code` in a fresh interpreter: a stack overflow fails the test instead of pytest."""
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=600, check=False)
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.mark.slow
def test_million_node_chain_forward_backward_free(compiled):
    out = _run("""
        import gc
        import numpy as np
        import transgrad as tg
        ops = tg._C.ops
        n = 1_000_000
        one = tg.tensor(1.0, dtype=tg.float64)
        x = tg.tensor(2.0, dtype=tg.float64, requires_grad=True)
        y = x
        for _ in range(n):
            y = ops.mul(y, one)   # saves y: each node holds the previous one twice
        assert tg._C._live_node_count() >= n
        y.backward()
        assert x.grad.item() == 1.0
        del y
        gc.collect()
        assert tg._C._live_node_count() <= 1, tg._C._live_node_count()

        # Destroyed without running backward: saved tensors still hold the chain.
        y = x
        for _ in range(n):
            y = ops.mul(y, one)
        del y
        gc.collect()
        assert tg._C._live_node_count() <= 1, tg._C._live_node_count()
        print("ok")
    """)
    assert "ok" in out


@pytest.mark.slow
def test_deep_create_graph_backward_and_free(compiled):
    out = _run("""
        import gc
        import transgrad as tg
        ops = tg._C.ops
        n = 200_000
        x = tg.tensor(1.0, dtype=tg.float64, requires_grad=True)
        y = x
        for _ in range(n):
            y = ops.mul(y, x)  # x ** (n + 1)
        (g,) = tg.autograd.grad(y, x, create_graph=True)
        assert g.item() == n + 1
        assert g.grad_fn is not None
        del y, g
        gc.collect()
        assert tg._C._live_node_count() <= 1, tg._C._live_node_count()
        print("ok")
    """)
    assert "ok" in out
