"""Hostile use of autograd on both engines (issue 11, item "same classes of fault elsewhere"):
hooks that raise, backward re-entered from a hook, threads racing on one leaf's ``.grad``. Each
must give torch's answer or a Python exception, never a crash, hang or lost update."""

import threading

import numpy as np
import pytest


def _leaf(tg, values=(1.0, 2.0, 3.0)):
    return tg.tensor(np.array(values), requires_grad=True)


def test_hook_that_raises_propagates_and_leaves_the_engine_usable(engine):
    tg = engine
    x = _leaf(tg)
    y = x * 2
    y.register_hook(lambda g: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        y.sum().backward()
    z = x * 3  # a fresh graph runs as usual afterwards
    z.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0, 3.0])


def test_node_hook_that_raises(engine):
    tg = engine
    x = _leaf(tg)
    y = x.exp()
    y.grad_fn.register_hook(lambda gi, go: (_ for _ in ()).throw(ValueError("from a node hook")))
    with pytest.raises(ValueError, match="from a node hook"):
        y.sum().backward()


def test_leaf_hook_returning_a_wrong_shape_raises(engine):
    tg = engine
    x = _leaf(tg)
    x.register_hook(lambda g: tg.ones(5))
    with pytest.raises(RuntimeError):
        (x * 2).sum().backward()


def test_backward_re_entered_from_a_hook(engine):
    tg = engine
    x, w = _leaf(tg), _leaf(tg, (0.5, -1.0, 4.0))
    inner = []

    def hook(g):
        with tg.enable_grad():  # backward runs hooks with grad mode off, as torch's
            (gw,) = tg.autograd.grad((w * w).sum(), w)  # a second, independent backward
            inner.append(gw.numpy().copy())
            (w ** 3).sum().backward()  # and one that accumulates into a leaf
        return g * 2

    y = x * x
    y.register_hook(hook)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 4 * x.detach().numpy())
    np.testing.assert_array_equal(inner[0], 2 * w.detach().numpy())
    np.testing.assert_array_equal(w.grad.numpy(), 3 * w.detach().numpy() ** 2)


def test_backward_of_the_same_graph_from_its_own_hook_raises(engine):
    tg = engine
    x = _leaf(tg)
    y = x * x
    s = y.sum()
    calls = []

    def hook(g):
        calls.append(1)
        if len(calls) < 3:  # re-entering the running graph: its buffers are kept, so it runs
            tg.autograd.grad(s, x, retain_graph=True)
        return g

    y.register_hook(hook)
    s.backward(retain_graph=True)
    assert len(calls) == 3
    np.testing.assert_array_equal(x.grad.numpy(), 2 * x.detach().numpy())


def test_threads_racing_on_one_leafs_grad(engine):
    tg = engine
    x = _leaf(tg, np.ones(64))
    n_threads, rounds = 6, 40
    barrier = threading.Barrier(n_threads)
    errors = []

    def work(k):
        try:
            barrier.wait()
            for _ in range(rounds):
                (x * float(k + 1)).sum().backward()
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    expected = rounds * sum(range(1, n_threads + 1))
    np.testing.assert_array_equal(x.grad.numpy(), np.full(64, float(expected)))


def test_threads_racing_on_grad_reads_and_resets(engine):
    tg = engine
    x = _leaf(tg, np.ones(16))
    stop = threading.Event()
    errors = []

    def backward():
        try:
            for _ in range(60):
                (x * 2.0).sum().backward()
        except BaseException as e:  # pragma: no cover
            errors.append(e)
        finally:
            stop.set()

    def reader():
        try:
            while not stop.is_set():
                g = x.grad
                if g is not None:
                    v = g.numpy()
                    assert v.shape == (16,) and np.all(v % 2 == 0)  # no torn values
                x.grad = None
        except BaseException as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=backward), threading.Thread(target=reader)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
