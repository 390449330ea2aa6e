"""The reference engine's recurrent kernels: numpy implementations of the recurrent section of
translator/signatures.py (lstm_cell, lstm_cell_backward, the whole layer's lstm_layer,
lstm_layer_bptt and lstm_layer_weight_grads, gru_cell and gru_cell_backward). Re-exported by
``kernels.py``; same conventions (Note [Kernel conventions], Note [Reference kernels]). The C++
twin is csrc/kernels/rnn.cpp; both compute in the gates' dtype, in the same order of operations.

Gates are (N, 4H), pre-activation, in torch's order (i, f, g, o); Note [The LSTM cell recomputes
its gates] in formulas/rnn.py says why the backward takes the gates rather than saved
activations.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from transgrad._errors import ArgumentError
from transgrad.reference.kernel_support import _arr, _new, _quiet, _shape


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def _cell_operands(name: str, gates: Any, c: Any, *more: Any) -> tuple[np.ndarray, ...]:
    """Checked (gates, c, *more) arrays: gates (N, 4H), the others (N, H), one float dtype."""
    arrays = tuple(_arr(t) for t in (gates, c) + more)
    a = arrays[0]
    if a.ndim != 2 or a.shape[1] % 4:
        raise ArgumentError(f"{name}: gates must be (N, 4H), got shape {_shape(a)}")
    if a.dtype.kind != "f":
        raise ArgumentError(f"{name}: unsupported dtype {a.dtype} (expected float32 or float64)")
    want = (a.shape[0], a.shape[1] // 4)
    for b in arrays[1:]:
        if _shape(b) != want:
            raise ArgumentError(f"{name}: expected a state of shape {want} for gates of shape "
                                f"{_shape(a)}, got {_shape(b)}")
        if b.dtype != a.dtype:
            raise ArgumentError(f"{name}: dtypes differ: gates {a.dtype}, state {b.dtype}")
    return arrays


def _activations(a: np.ndarray) -> tuple[np.ndarray, ...]:
    i, f, g, o = np.split(a, 4, axis=1)
    return _sigmoid(i), _sigmoid(f), np.tanh(g), _sigmoid(o)


@_quiet
def lstm_cell(gates: Any, c: Any) -> tuple[Any, Any]:
    a, cp = _cell_operands("lstm_cell", gates, c)
    i, f, g, o = _activations(a)
    c_new = f * cp + i * g
    return _new(o * np.tanh(c_new)), _new(c_new)


@_quiet
def lstm_cell_backward(gates: Any, c: Any, gh: Any, gc: Any) -> tuple[Any, Any]:
    a, cp, gh, gc = _cell_operands("lstm_cell_backward", gates, c, gh, gc)
    i, f, g, o = _activations(a)
    tc = np.tanh(f * cp + i * g)
    g_cn = gc + gh * o * (1.0 - tc * tc)
    grad_gates = np.concatenate([g_cn * g * i * (1.0 - i), g_cn * cp * f * (1.0 - f),
                                 g_cn * i * (1.0 - g * g), gh * tc * o * (1.0 - o)], axis=1)
    return _new(grad_gates), _new(g_cn * f)


def _layer_operands(name: str, steps_of: Any, c0: Any, w_hh: Any,
                    width: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Checked (c0, w_hh) arrays for a sequence ``steps_of`` (T, N, width * H); returns H too."""
    a = _arr(steps_of)
    c, w = _arr(c0), _arr(w_hh)
    if a.dtype.kind != "f":
        raise ArgumentError(f"{name}: unsupported dtype {a.dtype} (expected float32 or float64)")
    if w.ndim != 2 or w.shape[0] != 4 * w.shape[1]:
        raise ArgumentError(f"{name}: w_hh must be (4H, H), got shape {_shape(w)}")
    hid = w.shape[1]
    if a.ndim != 3 or (width and a.shape[2] != width * hid):
        raise ArgumentError(f"{name}: expected a sequence (T, N, {width * hid}) for w_hh of shape "
                            f"{_shape(w)}, got {_shape(a)}")
    if _shape(c) != (a.shape[1], hid):
        raise ArgumentError(f"{name}: expected a state of shape {(a.shape[1], hid)}, got "
                            f"{_shape(c)}")
    for b in (c, w):
        if b.dtype != a.dtype:
            raise ArgumentError(f"{name}: dtypes differ: {a.dtype} and {b.dtype}")
    return c, w, hid


@_quiet
def lstm_layer(x: Any, h0: Any, c0: Any, w_ih: Any, w_hh: Any, bias: Any,
               reverse: bool) -> tuple[Any, Any, Any]:
    xa = _arr(x)
    c, w, hid = _layer_operands("lstm_layer", x, c0, w_hh, 0)
    h, wi = _arr(h0), _arr(w_ih)
    if _shape(h) != _shape(c):
        raise ArgumentError(f"lstm_layer: expected a state of shape {_shape(c)}, got {_shape(h)}")
    if _shape(wi) != (4 * hid, xa.shape[2]) or wi.dtype != xa.dtype or h.dtype != xa.dtype:
        raise ArgumentError(f"lstm_layer: w_ih must be {(4 * hid, xa.shape[2])} of dtype "
                            f"{xa.dtype}, got {_shape(wi)} of {wi.dtype}")
    steps, n = xa.shape[0], xa.shape[1]
    gates = (xa.reshape(steps * n, xa.shape[2]) @ wi.T).reshape(steps, n, 4 * hid)
    if bias is not None:
        gates = gates + _arr(bias)
    hs = np.empty((steps, n, hid), xa.dtype)
    cs = np.empty((steps, n, hid), xa.dtype)
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        gates[t] += h @ w.T
        i, f, g, o = _activations(gates[t])
        c = f * c + i * g
        h = o * np.tanh(c)
        hs[t], cs[t] = h, c
    return _new(hs), _new(cs), _new(gates)


@_quiet
def lstm_layer_bptt(gates: Any, cs: Any, c0: Any, w_hh: Any, grad_hs: Any, grad_cs: Any,
                    grad_gates: Any, reverse: bool) -> tuple[Any, Any]:
    a = _arr(gates)
    c0a, w, hid = _layer_operands("lstm_layer_bptt", gates, c0, w_hh, 4)
    csa = _arr(cs)
    want = (a.shape[0], a.shape[1], hid)
    for what, t in (("cs", csa), ("grad_hs", grad_hs), ("grad_cs", grad_cs)):
        if t is not None and _shape(_arr(t)) != want:
            raise ArgumentError(f"lstm_layer_bptt: expected {what} of shape {want}, got "
                                f"{_shape(_arr(t))}")
    if grad_gates is not None and _shape(_arr(grad_gates)) != _shape(a):
        raise ArgumentError(f"lstm_layer_bptt: expected grad_gates of shape {_shape(a)}, got "
                            f"{_shape(_arr(grad_gates))}")
    steps, n = a.shape[0], a.shape[1]
    d_gates = np.empty_like(a)
    d_cs = np.empty((steps, n, hid), a.dtype)
    dh = np.zeros((n, hid), a.dtype)
    dc = np.zeros((n, hid), a.dtype)
    for t in (range(steps) if reverse else range(steps - 1, -1, -1)):
        prev = t + 1 if reverse else t - 1
        cp = csa[prev] if 0 <= prev < steps else c0a
        gh = dh if grad_hs is None else dh + _arr(grad_hs)[t]
        gc = dc if grad_cs is None else dc + _arr(grad_cs)[t]
        i, f, g, o = _activations(a[t])
        tc = np.tanh(f * cp + i * g)
        g_cn = gc + gh * o * (1.0 - tc * tc)
        dg = np.concatenate([g_cn * g * i * (1.0 - i), g_cn * cp * f * (1.0 - f),
                             g_cn * i * (1.0 - g * g), gh * tc * o * (1.0 - o)], axis=1)
        if grad_gates is not None:
            dg = dg + _arr(grad_gates)[t]
        d_gates[t], d_cs[t] = dg, g_cn * f
        dh, dc = dg @ w, d_cs[t]
    return _new(d_gates), _new(d_cs)


@_quiet
def lstm_layer_weight_grads(d_gates: Any, x: Any, hs: Any, h0: Any,
                            reverse: bool) -> tuple[Any, Any, Any]:
    d, xa, ha, h = _arr(d_gates), _arr(x), _arr(hs), _arr(h0)
    if d.dtype.kind != "f":
        raise ArgumentError(f"lstm_layer_weight_grads: unsupported dtype {d.dtype} (expected "
                            f"float32 or float64)")
    if d.ndim != 3 or d.shape[2] % 4 or xa.ndim != 3 or ha.ndim != 3 or h.ndim != 2:
        raise ArgumentError(f"lstm_layer_weight_grads: expected d_gates (T, N, 4H), x (T, N, I), "
                            f"hs (T, N, H) and h0 (N, H), got {_shape(d)}, {_shape(xa)}, "
                            f"{_shape(ha)} and {_shape(h)}")
    steps, n, hid = d.shape[0], d.shape[1], d.shape[2] // 4
    if xa.shape[:2] != (steps, n) or _shape(ha) != (steps, n, hid) or _shape(h) != (n, hid):
        raise ArgumentError(f"lstm_layer_weight_grads: expected x ({steps}, {n}, I), hs "
                            f"{(steps, n, hid)} and h0 {(n, hid)} for d_gates of shape "
                            f"{_shape(d)}, got {_shape(xa)}, {_shape(ha)} and {_shape(h)}")
    for b in (xa, ha, h):
        if b.dtype != d.dtype:
            raise ArgumentError(f"lstm_layer_weight_grads: dtypes differ: {d.dtype} and {b.dtype}")
    # each step's previous h: h0 for the first step the layer ran, else its neighbour in hs
    prev = ha
    if steps:
        prev = np.concatenate([ha[1:], h[None]] if reverse else [h[None], ha[:-1]])
    flat = d.reshape(steps * n, 4 * hid)
    g_ih = flat.T @ xa.reshape(steps * n, xa.shape[2])
    g_hh = flat.T @ prev.reshape(steps * n, hid)
    return _new(g_ih), _new(g_hh), _new(flat.sum(axis=0))


def _gru_operands(name: str, gi: Any, gh: Any, h: Any, *more: Any) -> tuple[np.ndarray, ...]:
    """Checked (gi, gh, h, *more) arrays: gi and gh (N, 3H), the others (N, H), one dtype."""
    a, b, hp = (_arr(t) for t in (gi, gh, h))
    rest = tuple(_arr(t) for t in more)
    if a.ndim != 2 or a.shape[1] % 3:
        raise ArgumentError(f"{name}: gates must be (N, 3H), got shape {_shape(a)}")
    if a.dtype.kind != "f":
        raise ArgumentError(f"{name}: unsupported dtype {a.dtype} (expected float32 or float64)")
    state = (a.shape[0], a.shape[1] // 3)
    if _shape(b) != _shape(a) or any(_shape(t) != state for t in (hp,) + rest):
        raise ArgumentError(f"{name}: expected gh of shape {_shape(a)} and h of shape "
                            f"{state}, got {_shape(b)} and "
                            f"{', '.join(str(_shape(t)) for t in (hp,) + rest)}")
    if any(t.dtype != a.dtype for t in (b, hp) + rest):
        raise ArgumentError(f"{name}: dtypes differ: "
                            f"{', '.join(str(t.dtype) for t in (a, b, hp) + rest)}")
    return (a, b, hp) + rest


def _gru_gates(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
    """(r, z, n, h_n) of a GRU step from gi and gh."""
    i_r, i_z, i_n = np.split(a, 3, axis=1)
    h_r, h_z, h_n = np.split(b, 3, axis=1)
    r = _sigmoid(i_r + h_r)
    z = _sigmoid(i_z + h_z)
    return r, z, np.tanh(i_n + r * h_n), h_n


@_quiet
def gru_cell(gi: Any, gh: Any, h: Any) -> Any:
    a, b, hp = _gru_operands("gru_cell", gi, gh, h)
    _, z, n, _ = _gru_gates(a, b)
    return _new(n + z * (hp - n))


@_quiet
def gru_cell_backward(gi: Any, gh: Any, h: Any, grad: Any) -> tuple[Any, Any, Any]:
    a, b, hp, g = _gru_operands("gru_cell_backward", gi, gh, h, grad)
    r, z, n, h_n = _gru_gates(a, b)
    g_n = g * (1.0 - z) * (1.0 - n * n)
    g_r = g_n * h_n * r * (1.0 - r)
    g_z = g * (hp - n) * z * (1.0 - z)
    return (_new(np.concatenate([g_r, g_z, g_n], axis=1)),
            _new(np.concatenate([g_r, g_z, g_n * r], axis=1)), _new(g * z))
