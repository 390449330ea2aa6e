"""Numpy kernels of torch's derivative table (issue 15): the last section of
translator/signatures.py, in its order, re-exported by ``reference/kernels.py``.

Stage: reference engine kernels. Input: Tensors (or arrays) and plain values; output: a fresh
Tensor. Same conventions as ``kernels.py`` (Note [Kernel conventions]) and the same values at
the edges as the C++ kernels (Note [Special function edges] in csrc/kernels/special.cpp): scipy's
special functions are used when scipy is installed; otherwise scalar Python versions of the C++
algorithms run elementwise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from transgrad.reference.kernels import (
    _F64,
    _INT,
    _arr,
    _floating,
    _new,
    _operands,
    _quiet,
    _wrap_dim,
    _wrap_dims,
)

__all__ = [
    "sinh", "cosh", "asinh", "acosh", "atanh", "asin", "acos", "atan", "exp2", "erfc", "erfinv",
    "lgamma", "digamma", "polygamma", "trunc", "nan_to_num", "atan2", "hypot", "fmod",
    "remainder", "floor_divide", "trunc_divide", "prod", "cumprod", "logcumsumexp", "cummax",
    "cummin",
]

# ---------------------------------------------------------------------------------------------
# Scalar special functions (the C++ algorithms), for when scipy is missing

_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
              43867 / 798, -174611 / 330, 854513 / 138, -236364091 / 2730)


def _erfinv1(y: float) -> float:
    if math.isnan(y) or not -1.0 <= y <= 1.0:
        return math.nan
    if abs(y) == 1.0:
        return math.copysign(math.inf, y)
    a = abs(y)
    k, lg = 0.147, math.log((1.0 - a) * (1.0 + a))
    t = 2.0 / (math.pi * k) + lg / 2.0
    x = math.sqrt(math.sqrt(t * t - lg / k) - t)
    for _ in range(4):
        f = (1.0 - a) - math.erfc(x) if a > 0.5 else math.erf(x) - a
        df = 2.0 / math.sqrt(math.pi) * math.exp(-x * x)
        if df == 0.0:
            break
        x -= f / (df * (1.0 + x * f))
    return -x if y < 0 else x


def _digamma1(x: float) -> float:
    if math.isnan(x):
        return x
    if x == 0.0:
        return math.copysign(math.inf, -x)
    if x < 0.0:
        if x == math.floor(x):
            return math.nan
        return _digamma1(1.0 - x) - math.pi / math.tan(math.pi * x)
    result = 0.0
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    term, tail = inv2, 0.0
    for k in range(1, 8):
        tail += _BERNOULLI[k - 1] / (2.0 * k) * term
        term *= inv2
    return result + math.log(x) - 0.5 / x - tail


def _hurwitz_zeta(s: float, q: float) -> float:
    total, a = 0.0, q
    while a < 10.0:
        if a == 0.0:
            return math.inf
        total += a ** -s
        a += 1.0
    total += a ** (1.0 - s) / (s - 1.0) + 0.5 * a ** -s
    rising, fact, power = s, 2.0, a ** (-s - 1.0)
    for j in range(1, 13):
        term = _BERNOULLI[j - 1] / fact * rising * power
        total += term
        if abs(term) < 1e-17 * abs(total):
            break
        rising *= (s + 2.0 * j - 1.0) * (s + 2.0 * j)
        fact *= (2.0 * j + 1.0) * (2.0 * j + 2.0)
        power /= a * a
    return total


def _polygamma1(n: int, x: float) -> float:
    if n == 0:
        return _digamma1(x)
    if math.isnan(x):
        return x
    if x <= 0.0 and x == math.floor(x):
        return math.inf if n % 2 == 1 else -math.inf
    sign = 1.0 if n % 2 == 1 else -1.0
    return sign * math.factorial(n) * _hurwitz_zeta(float(n + 1), x)


def _lgamma1(x: float) -> float:
    try:
        return math.lgamma(x)
    except ValueError:  # a pole: math raises where C's lgamma gives inf
        return math.inf


def _elementwise(fn: Any) -> Any:
    ufunc = np.frompyfunc(fn, 1, 1)
    return lambda a: np.asarray(ufunc(a), dtype=_F64)


try:  # scipy's versions are vectorised; their edge values are the same (tested)
    from scipy.special import erfinv as _np_erfinv
    from scipy.special import gammaln as _np_lgamma
    from scipy.special import polygamma as _scipy_polygamma
    from scipy.special import psi as _np_digamma

    def _np_polygamma(n: int, a: np.ndarray) -> np.ndarray:
        if n == 0:
            return _np_digamma(a)
        out = np.asarray(_scipy_polygamma(n, a), dtype=_F64)
        poles = (a <= 0) & (a == np.floor(a))
        return np.where(poles, np.inf if n % 2 == 1 else -np.inf, out)
except ImportError:  # pragma: no cover - exercised where scipy is not installed
    _np_erfinv = _elementwise(_erfinv1)
    _np_lgamma = _elementwise(_lgamma1)
    _np_digamma = _elementwise(_digamma1)

    def _np_polygamma(n: int, a: np.ndarray) -> np.ndarray:
        return np.asarray(np.frompyfunc(lambda v: _polygamma1(n, v), 1, 1)(a), dtype=_F64)


# ---------------------------------------------------------------------------------------------
# Unary


def _unary(np_fn: Any, name: str) -> Any:
    @_quiet
    def kernel(x: Any) -> Any:
        a = _floating(_arr(x))
        return _new(np.asarray(np_fn(a)).astype(a.dtype, copy=False))

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _digamma_edges(a: np.ndarray) -> np.ndarray:
    out = np.asarray(_np_digamma(a), dtype=_F64)
    out = np.where(a == 0, np.copysign(np.inf, -a), out)  # torch: digamma(+-0) = -+inf
    return np.where((a < 0) & (a == np.floor(a)), np.nan, out)


sinh = _unary(np.sinh, "sinh")
cosh = _unary(np.cosh, "cosh")
asinh = _unary(np.arcsinh, "asinh")
acosh = _unary(np.arccosh, "acosh")
atanh = _unary(np.arctanh, "atanh")
asin = _unary(np.arcsin, "asin")
acos = _unary(np.arccos, "acos")
atan = _unary(np.arctan, "atan")
exp2 = _unary(np.exp2, "exp2")
erfc = _unary(np.vectorize(math.erfc, otypes=[_F64]), "erfc")
erfinv = _unary(_np_erfinv, "erfinv")
lgamma = _unary(_np_lgamma, "lgamma")
digamma = _unary(_digamma_edges, "digamma")


@_quiet
def polygamma(n: int, x: Any) -> Any:
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    a = _floating(_arr(x))
    out = _digamma_edges(a) if n == 0 else _np_polygamma(n, a)
    return _new(np.asarray(out).astype(a.dtype, copy=False))


def trunc(x: Any) -> Any:
    a = _arr(x)
    return _new(np.trunc(a) if a.dtype.kind == "f" else a.copy())


def nan_to_num(x: Any, nan: float, posinf: float | None, neginf: float | None) -> Any:
    a = _arr(x)
    if a.dtype.kind != "f":
        return _new(a.copy())
    return _new(np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf))


# ---------------------------------------------------------------------------------------------
# Binary


def _float_binary(np_fn: Any, name: str) -> Any:
    @_quiet
    def kernel(a: Any, b: Any) -> Any:
        x, y = _operands(a, b, name)
        if x.dtype.kind != "f":
            x, y = x.astype(_F64), y.astype(_F64)
        return _new(np.asarray(np_fn(x, y)).astype(x.dtype, copy=False))

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _numeric_binary(float_fn: Any, int_fn: Any, name: str) -> Any:
    @_quiet
    def kernel(a: Any, b: Any) -> Any:
        x, y = _operands(a, b, name)
        if x.dtype.kind == "b":
            x, y = x.astype(_INT), y.astype(_INT)
        if x.dtype.kind == "i":
            if (y == 0).any():
                raise RuntimeError(f"{name}: ZeroDivisionError (an int64 divisor is 0)")
            return _new(np.asarray(int_fn(x, y)).astype(_INT, copy=False))
        return _new(np.asarray(float_fn(x, y)).astype(x.dtype, copy=False))

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _floor_divide_float(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Python's float // (as the C++ kernel): from fmod, rounded to the nearest whole number."""
    mod = np.fmod(a, b)
    div = (a - mod) / b
    div = div - ((mod != 0) & ((b < 0) != (mod < 0)))
    fl = np.floor(div)
    fl = fl + (div - fl > 0.5)
    fl = np.where(div == 0, np.copysign(0.0, a / b), fl)
    return np.where(b == 0, a / b, fl)


atan2 = _float_binary(np.arctan2, "atan2")
hypot = _float_binary(np.hypot, "hypot")
fmod = _numeric_binary(np.fmod, np.fmod, "fmod")
remainder = _numeric_binary(
    lambda a, b: np.where((np.fmod(a, b) != 0) & ((np.fmod(a, b) < 0) != (b < 0)),
                          np.fmod(a, b) + b, np.fmod(a, b)),
    np.remainder, "remainder")
floor_divide = _numeric_binary(_floor_divide_float, np.floor_divide, "floor_divide")
trunc_divide = _numeric_binary(
    lambda a, b: np.trunc(a / b),
    lambda a, b: a // b + ((a % b != 0) & ((a < 0) != (b < 0))), "trunc_divide")


# ---------------------------------------------------------------------------------------------
# Products and scans: rows along one dim (Note: cummax/cummin take the later index among equal
# values and let NaN win, as torch's; the C++ kernels in scan.cpp do the same)


def prod(x: Any, dims: Sequence[int], keepdim: bool) -> Any:
    a = _arr(x)
    a = a.astype(_INT) if a.dtype.kind == "b" else a
    axes = _wrap_dims(dims, a.ndim, "prod") if a.ndim else ()
    return _new(np.prod(a, axis=axes, keepdims=keepdim) if axes else a.copy())


@_quiet
def cumprod(x: Any, dim: int) -> Any:
    a = _floating(_arr(x))
    d = _wrap_dim(dim, a.ndim, "cumprod")
    return _new(np.cumprod(a, axis=d) if a.ndim else a.copy())


@_quiet
def logcumsumexp(x: Any, dim: int) -> Any:
    a = _floating(_arr(x))
    d = _wrap_dim(dim, a.ndim, "logcumsumexp")
    if a.ndim == 0:
        return _new(a.copy())
    moved = np.moveaxis(a, d, -1)
    out = np.empty_like(moved)
    acc = np.full(moved.shape[:-1], -np.inf, dtype=a.dtype)
    for i in range(moved.shape[-1]):
        v = moved[..., i]
        hi, lo = np.maximum(acc, v), np.minimum(acc, v)
        step = np.where(lo == hi, hi + np.log(2.0).astype(a.dtype), hi + np.log1p(np.exp(lo - hi)))
        step = np.where(lo == -np.inf, hi, step)
        acc = np.where(np.isnan(v) | np.isnan(acc), v + acc, step).astype(a.dtype)
        out[..., i] = acc
    return _new(np.moveaxis(out, -1, d))


def _cum_extremum(x: Any, dim: int, name: str, is_max: bool) -> tuple:
    a = _arr(x)
    a = a.astype(_INT) if a.dtype.kind == "b" else a
    d = _wrap_dim(dim, a.ndim, name)
    if a.ndim == 0:
        return _new(a.copy()), _new(np.zeros((), _INT))
    moved = np.moveaxis(a, d, -1)
    values, indices = np.empty_like(moved), np.empty(moved.shape, _INT)
    best = moved[..., 0].copy()
    at = np.zeros(moved.shape[:-1], _INT)
    for i in range(moved.shape[-1]):
        v = moved[..., i]
        better = v >= best if is_max else v <= best
        take = (v != v) | ((best == best) & better)
        best = np.where(take, v, best)
        at = np.where(take, i, at)
        values[..., i], indices[..., i] = best, at
    return _new(np.moveaxis(values, -1, d)), _new(np.moveaxis(indices, -1, d))


@_quiet
def cummax(x: Any, dim: int) -> tuple:
    return _cum_extremum(x, dim, "cummax", True)


@_quiet
def cummin(x: Any, dim: int) -> tuple:
    return _cum_extremum(x, dim, "cummin", False)
