"""The small-object cache (csrc/tensor/small_alloc.cpp, Note [Small object cache]) under the
Python API: tensors, nodes and shapes made on one thread and freed on another, by threads that
have exited, and chains larger than a thread's cache. Each case checks values against numpy, so
a block handed out twice or of the wrong size shows up as a wrong gradient (or under the
sanitizers, tools/sanitize.sh)."""

import queue
import threading

import numpy as np


def chain(tg, x0, w, b, n):
    """W1's chain: n rounds of y = sin(y) * w + b from a leaf x; returns (x, w, b, y)."""
    x = tg.tensor(x0, dtype=tg.float64, requires_grad=True)
    wt = tg.tensor(w, dtype=tg.float64, requires_grad=True)
    bt = tg.tensor(b, dtype=tg.float64, requires_grad=True)
    y = x
    for _ in range(n):
        y = y.sin() * wt + bt
    return x, wt, bt, y


def expected_grads(x0, w, b, n):
    """(dx, dw, db) of chain(...)[3].sum(), by hand."""
    ys = [np.array(x0, dtype=np.float64)]
    for _ in range(n):
        ys.append(np.sin(ys[-1]) * w + b)
    g, dw, db = np.ones(4), np.zeros(4), np.zeros(4)
    for y in reversed(ys[:-1]):
        dw += g * np.sin(y)
        db += g
        g = g * np.cos(y) * w
    return g, dw, db


def check_grads(x, w, b, seed, n):
    for t, want in zip((x, w, b), expected_grads(*data(seed), n)):
        np.testing.assert_allclose(t.grad.detach().numpy(), want, rtol=1e-10, atol=1e-300)


def data(seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, 4), rng.uniform(0.5, 1.0, 4), rng.uniform(-0.5, 0.5, 4)


def join_all(threads):
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread hung"


def test_graph_made_by_an_exited_thread_is_run_and_freed_here(compiled):
    tg = compiled
    made = []
    x0, w, b = data(0)
    t = threading.Thread(target=lambda: made.append(chain(tg, x0, w, b, 300)))
    t.start()
    join_all([t])
    x, wt, bt, y = made.pop()
    y.sum().backward()  # frees the dead thread's blocks into this thread's cache
    check_grads(x, wt, bt, 0, 300)
    del x, wt, bt, y
    x, wt, bt, y = chain(tg, x0, w, b, 300)  # and takes them again
    y.sum().backward()
    check_grads(x, wt, bt, 0, 300)


def test_graphs_handed_between_short_lived_threads(compiled):
    tg = compiled
    handoff, errors = queue.Queue(), []

    def produce(seed):
        try:
            x0, w, b = data(seed)
            handoff.put((seed, chain(tg, x0, w, b, 100 + seed)))
        except BaseException as e:  # noqa: BLE001 - reported to the main thread
            errors.append(e)

    def consume(count):
        try:
            for _ in range(count):
                seed, (x, w, b, y) = handoff.get(timeout=60)
                y.sum().backward()
                check_grads(x, w, b, seed, 100 + seed)
                del x, w, b, y  # freed on this thread, made on another
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    for wave in range(4):  # fresh threads each wave: caches of exited threads are gone
        consumers = [threading.Thread(target=consume, args=(4,)) for _ in range(2)]
        producers = [threading.Thread(target=produce, args=(wave * 8 + i,)) for i in range(8)]
        for t in consumers + producers:
            t.start()
        join_all(producers + consumers)
        assert not errors, errors


def test_chain_larger_than_the_cache(compiled):
    # ~60k nodes and tensors of each kind: far beyond a thread's per-class cap, so blocks also
    # go back to the system allocator; twice, so the second chain reuses cached blocks.
    tg = compiled
    x0, w, b = data(1)
    for _ in range(2):
        x, wt, bt, y = chain(tg, x0, w, b, 20000)
        y.sum().backward()
        check_grads(x, wt, bt, 1, 20000)
        del x, wt, bt, y
