"""The reference engine's recurrent-cell kernels: numpy implementations of the recurrent section
of translator/signatures.py (lstm_cell, lstm_cell_backward). Re-exported by ``kernels.py``;
same conventions (Note [Kernel conventions], Note [Reference kernels]). The C++ twin is
csrc/kernels/rnn.cpp; both compute in the gates' dtype, in the same order of operations.

Gates are (N, 4H), pre-activation, in torch's order (i, f, g, o); Note [The LSTM cell recomputes
its gates] in formulas/rnn.py says why the backward takes the gates rather than saved
activations.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from transgrad.reference.kernel_support import _arr, _new, _quiet, _shape


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def _cell_operands(name: str, gates: Any, c: Any, *more: Any) -> tuple[np.ndarray, ...]:
    """Checked (gates, c, *more) arrays: gates (N, 4H), the others (N, H), one float dtype."""
    arrays = tuple(_arr(t) for t in (gates, c) + more)
    a = arrays[0]
    if a.ndim != 2 or a.shape[1] % 4:
        raise ValueError(f"{name}: gates must be (N, 4H), got shape {_shape(a)}")
    if a.dtype.kind != "f":
        raise ValueError(f"{name}: unsupported dtype {a.dtype} (expected float32 or float64)")
    want = (a.shape[0], a.shape[1] // 4)
    for b in arrays[1:]:
        if _shape(b) != want:
            raise ValueError(f"{name}: expected a state of shape {want} for gates of shape "
                             f"{_shape(a)}, got {_shape(b)}")
        if b.dtype != a.dtype:
            raise ValueError(f"{name}: dtypes differ: gates {a.dtype}, state {b.dtype}")
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
