"""The multi-tensor optimizer steps of the reference engine: the numpy twin of
csrc/kernels/optim.cpp (``_C._optim``), reached by the optimizers as ``backend.optim``.

Input: lists of reference tensors (parameters, gradients, state; an empty list for an unused
state) and the step's numbers, as ``csrc/kernels/optim.h`` declares them. Output: nothing; the
parameters and states are written in place and their versions bumped, as an in-place op does.

Invariant: the same operations, rounded at the same places, as the C++ loops (Note [Optimizer
steps in torch's order] in csrc/kernels/optim.cpp). numpy has no fused multiply-add: ``_fma``
computes it exactly for float32 (in float64) and with an error-free product for float64, so
the two engines agree except in rare double-rounding ties.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from transgrad._errors import ArgumentError

__all__ = ["adagrad_step_", "adam_step_", "rmsprop_step_", "sgd_step_"]

_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's split of a float64 into two 26-bit halves


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(p, e)`` with ``p = fl(a * b)`` and ``a * b == p + e`` exactly (Dekker)."""
    p = a * b
    ah = a * _SPLIT
    ah = ah - (ah - a)
    al = a - ah
    bh = b * _SPLIT
    bh = bh - (bh - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fma(a: Any, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` rounded once (to ``c``'s dtype)."""
    c = np.asarray(c)
    dtype = c.dtype
    if dtype == np.float32:
        return (np.float64(a) * np.asarray(b, np.float64) + c.astype(np.float64)).astype(np.float32)
    a, b = np.broadcast_arrays(np.asarray(a, dtype), np.asarray(b, dtype))
    p, e = _two_product(a, b)
    s = p + c
    z = s - p
    t = (p - (s - z)) + (c - z)  # s + t == p + c exactly (Knuth's two-sum)
    with np.errstate(invalid="ignore"):
        r = s + (t + e)
    return np.where(np.isfinite(r), r, p + c)


def _lerp(start: np.ndarray, end: np.ndarray, w: Any) -> np.ndarray:
    """torch's lerp: ``fma(w, end - start, start)`` for ``|w| < 0.5``, else from ``end``."""
    if abs(w) < 0.5:
        return _fma(w, end - start, start)
    return _fma(w - start.dtype.type(1), end - start, end)


def _data(t: Any) -> np.ndarray:
    return t._data


def _write(t: Any, value: np.ndarray) -> None:
    t._data[...] = value
    t._bump_version()


def _check(op: str, what: str, params: Sequence[Any], tensors: Sequence[Any],
           optional: bool = False) -> None:
    if optional and not tensors:
        return
    if len(tensors) != len(params):
        raise ArgumentError(f"{op}: expected {len(params)} {what}, got {len(tensors)}")
    for i, (p, t) in enumerate(zip(params, tensors)):
        a, b = _data(p), _data(t)
        if a.dtype not in (np.float32, np.float64):
            raise ArgumentError(f"{op}: parameter {i} has dtype {a.dtype} (expected float32 or "
                                f"float64)")
        if b.dtype != a.dtype or b.size != a.size:
            raise ArgumentError(f"{op}: {what} {i} must be a tensor of its parameter's dtype and "
                                f"size ({a.dtype}, {a.size} elements), got {b.dtype}, {b.size} "
                                f"elements")


def sgd_step_(params: Sequence[Any], grads: Sequence[Any], momentum_buffers: Sequence[Any],
              first: Sequence[bool], lr: float, momentum: float, dampening: float,
              weight_decay: float, nesterov: bool, maximize: bool) -> None:
    _check("sgd_step_", "grads", params, grads)
    _check("sgd_step_", "momentum buffers", params, momentum_buffers, optional=momentum == 0)
    for i, (p, g) in enumerate(zip(params, grads)):
        pv = _data(p)
        t = pv.dtype.type
        d = -_data(g) if maximize else _data(g)
        if weight_decay != 0:
            d = _fma(pv, t(weight_decay), d)
        if momentum != 0:
            buf = _data(momentum_buffers[i])
            b = d if first[i] else _fma(d, t(1.0 - dampening), buf * t(momentum))
            _write(momentum_buffers[i], b)
            d = _fma(b, t(momentum), d) if nesterov else b
        _write(p, _fma(d, t(-lr), pv))


def adam_step_(params: Sequence[Any], grads: Sequence[Any], exp_avgs: Sequence[Any],
               exp_avg_sqs: Sequence[Any], max_exp_avg_sqs: Sequence[Any],
               step_sizes: Sequence[float], bc2_sqrts: Sequence[float], lr: float, beta1: float,
               beta2: float, eps: float, weight_decay: float, decoupled: bool, amsgrad: bool,
               maximize: bool) -> None:
    _check("adam_step_", "grads", params, grads)
    _check("adam_step_", "exp_avgs", params, exp_avgs)
    _check("adam_step_", "exp_avg_sqs", params, exp_avg_sqs)
    _check("adam_step_", "max_exp_avg_sqs", params, max_exp_avg_sqs, optional=not amsgrad)
    for i, (p, g) in enumerate(zip(params, grads)):
        pv = _data(p)
        t = pv.dtype.type
        gi = -_data(g) if maximize else _data(g)
        if weight_decay != 0:
            if decoupled:
                pv = pv * t(1.0 - lr * weight_decay)
            else:
                gi = _fma(pv, t(weight_decay), gi)
        m = _lerp(_data(exp_avgs[i]), gi, t(1.0 - beta1))
        v = _fma(t(1.0 - beta2) * gi, gi, _data(exp_avg_sqs[i]) * t(beta2))
        _write(exp_avgs[i], m)
        _write(exp_avg_sqs[i], v)
        src = v
        if amsgrad:
            src = np.maximum(_data(max_exp_avg_sqs[i]), v)
            _write(max_exp_avg_sqs[i], src)
        denom = np.sqrt(src) / t(bc2_sqrts[i]) + t(eps)
        _write(p, pv + (t(-step_sizes[i]) * m) / denom)


def rmsprop_step_(params: Sequence[Any], grads: Sequence[Any], square_avgs: Sequence[Any],
                  grad_avgs: Sequence[Any], momentum_buffers: Sequence[Any], lr: float,
                  alpha: float, eps: float, weight_decay: float, momentum: float, centered: bool,
                  maximize: bool) -> None:
    _check("rmsprop_step_", "grads", params, grads)
    _check("rmsprop_step_", "square_avgs", params, square_avgs)
    _check("rmsprop_step_", "grad_avgs", params, grad_avgs, optional=not centered)
    _check("rmsprop_step_", "momentum buffers", params, momentum_buffers,
           optional=not momentum > 0)
    for i, (p, g) in enumerate(zip(params, grads)):
        pv = _data(p)
        t = pv.dtype.type
        gi = -_data(g) if maximize else _data(g)
        if weight_decay != 0:
            gi = _fma(pv, t(weight_decay), gi)
        sq = _fma(t(1.0 - alpha) * gi, gi, _data(square_avgs[i]) * t(alpha))
        _write(square_avgs[i], sq)
        if centered:
            ga = _lerp(_data(grad_avgs[i]), gi, t(1.0 - alpha))
            _write(grad_avgs[i], ga)
            avg = np.sqrt(_fma(-ga, ga, sq))
        else:
            avg = np.sqrt(sq)
        avg = avg + t(eps)
        if momentum > 0:
            b = _data(momentum_buffers[i]) * t(momentum) + gi / avg
            _write(momentum_buffers[i], b)
            _write(p, _fma(b, t(-lr), pv))
        else:
            _write(p, pv + (t(-lr) * gi) / avg)


def adagrad_step_(params: Sequence[Any], grads: Sequence[Any], sums: Sequence[Any],
                  clrs: Sequence[float], weight_decay: float, eps: float,
                  maximize: bool) -> None:
    _check("adagrad_step_", "grads", params, grads)
    _check("adagrad_step_", "sums", params, sums)
    for i, (p, g) in enumerate(zip(params, grads)):
        pv = _data(p)
        t = pv.dtype.type
        gi = -_data(g) if maximize else _data(g)
        if weight_decay != 0:
            gi = _fma(pv, t(weight_decay), gi)
        s = _fma(gi, gi, _data(sums[i]))
        _write(sums[i], s)
        _write(p, pv + (t(-clrs[i]) * gi) / (np.sqrt(s) + t(eps)))
