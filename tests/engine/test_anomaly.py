"""Anomaly mode on both engines (issue 4, item 6): under ``detect_anomaly()`` each node records
where the user's code made it; a NaN that a backward produces raises an error naming the node,
its formula's path:line and that forward traceback; errors raised inside a backward end with it
too. Off, nothing is recorded or checked."""

import threading

import numpy as np
import pytest


def f64(tg, a, requires_grad=True):
    return tg.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def full_text(e):
    """The message and, for the reference engine on Python >= 3.11, the notes under it."""
    return "\n".join([str(e)] + list(getattr(e, "__notes__", ())))


def make_nan_graph(tg):
    x = f64(tg, [0.0, 1.0])
    y = (x.sqrt() * 0.0).sum()  # MARK-sqrt: d sqrt at 0 is inf; inf * 0 = nan
    return x, y


def test_nan_error_names_the_formula_and_the_forward_traceback(engine):
    tg = engine
    with tg.autograd.detect_anomaly():
        x, y = make_nan_graph(tg)
        with pytest.raises(RuntimeError) as info:
            y.backward()
    msg = str(info.value)
    assert "function SqrtBackward0 (" in msg
    assert "formulas/unary.py:" in msg  # the formula's Python line
    # torch's sentence, our node name in it, then where the formula is
    assert msg.startswith("Function 'SqrtBackward0' returned nan values in its 0th output. "
                          "(function SqrtBackward0 (")
    assert "detected by detect_anomaly)" in msg
    assert "The forward call that made SqrtBackward0 (most recent call last):" in msg
    # the user's frames, innermost last, with their source lines
    assert f'File "{__file__}"' in msg
    assert "in make_nan_graph" in msg and "MARK-sqrt" in msg
    assert "in test_nan_error_names_the_formula_and_the_forward_traceback" in msg
    last = msg.rstrip().splitlines()[-1]
    assert "MARK-sqrt" in last  # transgrad's own frames (API methods, runners) are left out
    assert "/transgrad/_api/" not in msg and "/transgrad/reference/" not in msg


def test_nan_of_a_node_made_outside_anomaly_mode(engine):
    tg = engine
    x, y = make_nan_graph(tg)
    with tg.autograd.detect_anomaly():
        with pytest.raises(RuntimeError) as info:
            y.backward(retain_graph=True)
    msg = str(info.value)
    assert "SqrtBackward0" in msg and "returned nan values" in msg
    assert ("no forward traceback: SqrtBackward0 was made while detect_anomaly() was off; run "
            "the forward inside detect_anomaly() to see where") in msg
    y.backward()  # anomaly mode off: no check, the NaN reaches .grad
    assert np.isnan(x.grad.detach().numpy()[0])


def test_nan_from_a_custom_function(engine):
    tg = engine

    class NanGrad(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    with tg.autograd.detect_anomaly():
        x = f64(tg, [1.0])
        y = NanGrad.apply(x).sum()  # MARK-function
        with pytest.raises(RuntimeError) as info:
            y.backward()
    msg = str(info.value)
    assert "NanGradBackward" in msg and "returned nan values" in msg
    assert "MARK-function" in msg


def test_error_in_backward_ends_with_the_forward_traceback(engine):
    tg = engine
    with tg.autograd.detect_anomaly():
        x = f64(tg, [1.0, 2.0])
        h = x * 1
        y = h.exp() * h  # MARK-saved: MulBackward0 saves h
        with tg.no_grad():
            h.mul_(2)
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
    text = full_text(info.value)
    assert "modified by an inplace operation" in text
    assert "The forward call that made MulBackward0 (most recent call last):" in text
    assert "MARK-saved" in text


def test_anomaly_mode_off_records_nothing(engine):
    tg = engine
    x = f64(tg, [0.0])
    y = x.sqrt()
    if hasattr(y.grad_fn, "anomaly_frames"):  # the reference engine's node attribute
        assert y.grad_fn.anomaly_frames is None
    with tg.autograd.detect_anomaly():
        z = x.sqrt()
    if hasattr(z.grad_fn, "anomaly_frames"):
        assert z.grad_fn.anomaly_frames


def test_anomaly_mode_with_double_backward_and_threads(engine):
    """Nodes made by a backward under create_graph, and in other threads, record a stack too
    (the compiled engine takes the GIL for it) and nothing deadlocks."""
    tg = engine
    out, errors = [], []

    def work():
        try:
            x = f64(tg, [0.5, 1.0])
            (g,) = tg.autograd.grad((x.sin() * x).sum(), x, create_graph=True)
            (gg,) = tg.autograd.grad(g.sum(), x)
            out.append(gg.detach().numpy().copy())
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    with tg.autograd.detect_anomaly():
        threads = [threading.Thread(target=work) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert not errors, errors
    a = np.array([0.5, 1.0])
    for gg in out:
        np.testing.assert_allclose(gg, 2 * np.cos(a) - a * np.sin(a))
    assert len(out) == 3
