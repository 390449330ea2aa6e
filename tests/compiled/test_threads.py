"""The compiled engine and Python threads: backward runs with the GIL released, several threads
may run backward at once (on separate graphs or on one shared graph), grad mode is per thread,
Python hooks and Functions run in whichever thread runs the backward."""

import sys
import threading
import time

import numpy as np
import pytest


def f64(tg, data, requires_grad=True):
    return tg.tensor(data, dtype=tg.float64, requires_grad=requires_grad)


def run_threads(n, target):
    errors, results = [], [None] * n
    start = threading.Barrier(n)

    def body(i):
        try:
            start.wait()
            results[i] = target(i)
        except BaseException as e:  # noqa: BLE001 - reported to the main thread
            errors.append((i, e))

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a backward thread hung"
    return results, errors


def test_threads_backward_separate_graphs(compiled):
    tg = compiled
    a = np.linspace(-1.0, 1.0, 50)

    def work(i):
        x = f64(tg, a * (i + 1))
        y = x
        for _ in range(200):
            y = (y.sin() * 0.5 + y) * 0.9
        y.sum().backward()
        return x.grad.detach().numpy().copy()

    results, errors = run_threads(8, work)
    assert not errors, errors
    for i, g in enumerate(results):
        assert np.isfinite(g).all()
        np.testing.assert_allclose(g, work(i))  # same as computed alone


def test_threads_shared_graph_with_retain_graph(compiled):
    tg = compiled
    x = f64(tg, np.linspace(0.1, 2.0, 64))
    w = f64(tg, np.linspace(-1.0, 1.0, 64))
    loss = ((x * w).sin() * x.exp()).sum()
    (expected_x, expected_w) = tg.autograd.grad(loss, (x, w), retain_graph=True)

    def work(i):
        out = []
        for _ in range(20):
            out.append(tg.autograd.grad(loss, (x, w), retain_graph=True))
        return out

    results, errors = run_threads(6, work)
    assert not errors, errors
    for per_thread in results:
        for gx, gw in per_thread:
            np.testing.assert_allclose(gx.detach().numpy(), expected_x.detach().numpy())
            np.testing.assert_allclose(gw.detach().numpy(), expected_w.detach().numpy())


def test_threads_accumulate_into_shared_leaf(compiled):
    tg = compiled
    x = f64(tg, [1.0, 2.0, 3.0])
    y = (x * x).sum()
    n, reps = 6, 25

    def work(i):
        for _ in range(reps):
            y.backward(retain_graph=True)

    _, errors = run_threads(n, work)
    assert not errors, errors
    np.testing.assert_allclose(x.grad.detach().numpy(), n * reps * 2 * np.array([1.0, 2.0, 3.0]))


def test_threads_shared_graph_without_retain_graph_gives_clean_error(compiled):
    tg = compiled
    for _ in range(20):
        x = f64(tg, np.linspace(0.5, 1.5, 32))
        y = (x * x).sin()
        z = y * y  # the first node of the backward saves tensors

        def work(i, z=z):
            z.backward(tg.ones_like(z))
            return True

        results, errors = run_threads(2, work)
        assert results.count(True) == 1, (results, errors)
        assert len(errors) == 1
        (_, e), = errors
        assert isinstance(e, RuntimeError)
        assert "backward through the graph a second time" in str(e)
        assert "retain_graph=True" in str(e)


def test_backward_releases_the_gil(compiled):
    tg = compiled
    n = 1 << 21
    x = tg.tensor(np.linspace(0.0, 1.0, n), requires_grad=True)
    y = x
    for _ in range(40):
        y = (y * 1.0001).sin()
    loss = y.sum()
    done = threading.Event()
    progress = [0]

    def counter():
        while not done.is_set():
            progress[0] += 1

    t0 = time.perf_counter()
    loss.backward(retain_graph=True)
    alone = time.perf_counter() - t0

    th = threading.Thread(target=counter)
    th.start()
    try:
        start = progress[0]
        t0 = time.perf_counter()
        loss.backward()
        elapsed = time.perf_counter() - t0
        during = progress[0] - start
    finally:
        done.set()
        th.join()
    assert x.grad is not None
    # Holding the GIL for the whole backward would leave the counter thread a few switch
    # intervals (5 ms each) at most; released, it counts all along.
    assert elapsed > 0.02, f"backward too short to measure ({elapsed:.3f}s, alone {alone:.3f}s)"
    assert during > 1000, f"counter advanced {during} times during a {elapsed:.3f}s backward"


def test_python_hook_runs_in_backward_thread(compiled):
    tg = compiled
    seen = []

    def work(i):
        x = f64(tg, [1.0, 2.0])
        y = x * 3.0
        y.register_hook(lambda g: seen.append((i, threading.get_ident())) or g * 2)
        y.sum().backward()
        return x.grad.detach().numpy().copy(), threading.get_ident()

    results, errors = run_threads(4, work)
    assert not errors, errors
    assert len(seen) == 4
    idents = {i: ident for i, ident in seen}
    for i, (g, ident) in enumerate(results):
        np.testing.assert_allclose(g, [6.0, 6.0])
        assert idents[i] == ident


def test_python_function_in_concurrent_backward(compiled):
    tg = compiled

    class Square(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x

    def work(i):
        x = f64(tg, [1.0, 2.0, float(i)])
        Square.apply(x).sum().backward()
        return x.grad.detach().numpy().copy()

    results, errors = run_threads(6, work)
    assert not errors, errors
    for i, g in enumerate(results):
        np.testing.assert_allclose(g, [2.0, 4.0, 2.0 * i])


def test_grad_mode_is_per_thread(compiled):
    tg = compiled
    inside = threading.Event()
    release = threading.Event()
    seen = {}

    def other():
        seen["other_before"] = tg.is_grad_enabled()
        inside.set()
        release.wait(10)
        x = f64(tg, [1.0])
        seen["other_records"] = (x * 2).requires_grad

    th = threading.Thread(target=other)
    with tg.no_grad():
        th.start()
        inside.wait(10)
        seen["main"] = tg.is_grad_enabled()
        release.set()
        th.join()
    assert seen == {"other_before": True, "main": False, "other_records": True}


@pytest.mark.parametrize("create_graph", [False, True])
def test_threads_double_backward(compiled, create_graph):
    tg = compiled

    def work(i):
        x = f64(tg, [0.5, 1.0, 1.5])
        (g,) = tg.autograd.grad((x.sin() * x).sum(), x, create_graph=True)
        (gg,) = tg.autograd.grad(g.sum(), x, create_graph=create_graph)
        return gg.detach().numpy().copy()

    results, errors = run_threads(4, work)
    assert not errors, errors
    a = np.array([0.5, 1.0, 1.5])
    for gg in results:
        np.testing.assert_allclose(gg, 2 * np.cos(a) - a * np.sin(a))



def gil_free_share(fn):
    """How much a counter thread runs while ``fn()`` runs on this thread, relative to its rate
    while this thread sleeps (GIL released): about 1 when fn releases the GIL, near 0 when it
    holds it. The switch interval is made long, so the counter gets the GIL only when this
    thread gives it up (the counter itself yields it at every step). Returns (share, result)."""
    done = threading.Event()
    ready = threading.Event()
    progress = [0]

    def counter():
        ready.set()
        while not done.is_set():
            progress[0] += 1
            time.sleep(0)  # releases the GIL: this thread gets it back at once

    old = sys.getswitchinterval()
    th = threading.Thread(target=counter)
    th.start()
    ready.wait(10)
    sys.setswitchinterval(2.0)
    try:
        start, t0 = progress[0], time.perf_counter()
        time.sleep(0.3)
        alone = (progress[0] - start) / (time.perf_counter() - t0)
        start, t0 = progress[0], time.perf_counter()
        result = fn()
        during = (progress[0] - start) / (time.perf_counter() - t0)
    finally:
        sys.setswitchinterval(old)
        done.set()
        th.join()
    return during / max(alone, 1.0), result


def test_python_function_takes_the_gil_only_while_it_runs(compiled):
    """A backward with a Python Function in the middle of large C++ nodes: another Python
    thread keeps running during it (the GIL is taken for the Function's backward only)."""
    tg = compiled
    calls = []

    class Scale(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2.0

        @staticmethod
        def backward(ctx, g):
            calls.append(threading.get_ident())
            return g * 2.0

    x = tg.tensor(np.linspace(0.0, 1.0, 1 << 20), requires_grad=True)
    y = x
    for _ in range(20):
        y = (y * 1.0001).sin()
    y = Scale.apply(y)
    for _ in range(20):
        y = (y * 1.0001).sin()
    loss = y.sum()
    share, _ = gil_free_share(loss.backward)
    assert calls == [threading.get_ident()]  # ran once, in the thread that called backward
    assert x.grad is not None and np.isfinite(x.grad.detach().numpy()).all()
    assert share > 0.15, f"the other thread ran {share:.0%} of its speed during the backward"


def test_forward_of_large_ops_releases_the_gil(compiled):
    """Forward ops on large tensors run without the GIL (Note [GIL in forward ops]); small
    ones keep it."""
    tg = compiled

    def chain(n, reps):
        y = tg.tensor(np.linspace(0.0, 1.0, n))
        for _ in range(reps):
            y = tg.ops.sin(y) * 1.0001  # a generated binding, then a fast operator
        return y

    share, y = gil_free_share(lambda: chain(1 << 21, 30))
    assert np.isfinite(y.detach().numpy()).all()
    assert share > 0.15, f"the other thread ran {share:.0%} of its speed during the forward"
    share, _ = gil_free_share(lambda: chain(16, 20000))
    assert share < 0.2, f"the other thread ran {share:.0%} of its speed during small ops"
