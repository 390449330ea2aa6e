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
from typing import Any, Optional

import numpy as np

from transgrad import _dtypes
from transgrad.reference.kernel_support import (
    _DEFAULT_DTYPE,
    _F64,
    _INT,
    _arr,
    _floating,
    _new,
    _operands,
    _quiet,
    _wrap_dim,
    _wrap_dims,
    broadcast_pair,
)

__all__ = [
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "cosh",
    "cummax",
    "cummin",
    "cumprod",
    "det",
    "digamma",
    "erfc",
    "erfinv",
    "exp2",
    "floor_divide",
    "fmod",
    "hypot",
    "inverse",
    "lgamma",
    "logcumsumexp",
    "masked_scatter",
    "masked_select",
    "nan_to_num",
    "polygamma",
    "prod",
    "remainder",
    "scatter",
    "sinh",
    "slogdet",
    "solve",
    "trunc",
    "trunc_divide",
]

# ---------------------------------------------------------------------------------------------
# Special functions as the C++ algorithms, for when scipy is missing

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
    for _ in range(4):  # Halley: cubic convergence, stopped below rounding (as special.cpp)
        f = (1.0 - a) - math.erfc(x) if a > 0.5 else math.erf(x) - a
        df = 2.0 / math.sqrt(math.pi) * math.exp(-x * x)
        if df == 0.0:
            break
        step = f / (df + x * f)  # Halley: f'' = -2 x f
        x -= step
        if abs(step) <= 1e-15 * abs(x):
            break
    return math.copysign(x, y)  # -0.0 -> -0.0, as torch


def _np_digamma_series(a: np.ndarray) -> np.ndarray:
    """digamma as csrc/kernels/special.cpp's digamma_scalar, vectorised: reflection below 0,
    the recurrence psi(x) = psi(x + 1) - 1/x up to 10, then the asymptotic series."""
    x = np.asarray(a, dtype=_F64)
    with np.errstate(all="ignore"):
        neg = x < 0
        pole = neg & (x == np.floor(x))  # -inf included: NaN, as torch
        reflect = np.where(neg & ~pole, np.pi / np.tan(np.pi * x), 0.0)
        z = np.where(pole, 1.0, np.where(neg, 1.0 - x, x))
        result = np.zeros_like(z)
        low = z < 10.0  # at most 10 steps: z >= 0 here
        while low.any():
            result -= np.where(low, 1.0 / z, 0.0)
            z = np.where(low, z + 1.0, z)
            low = z < 10.0
        inv2 = 1.0 / (z * z)
        term, tail = inv2, np.zeros_like(z)
        for k in range(1, 8):
            tail += _BERNOULLI[k - 1] / (2.0 * k) * term
            term = term * inv2
        out = result + np.log(z) - 0.5 / z - tail - reflect
    out = np.where(pole, np.nan, out)
    return np.where(x == 0, np.copysign(np.inf, -x), out)  # -inf at +0, +inf at -0


def _np_hurwitz_zeta(s: float, q: np.ndarray) -> np.ndarray:
    """zeta(s, q) for an integer s >= 2 as special.cpp's hurwitz_zeta, vectorised: direct terms
    until q + k >= 10, then the Euler-Maclaurin tail (each element stops where the C++ does)."""
    a = q.copy()
    total = np.zeros_like(a)
    pole = np.zeros(a.shape, dtype=bool)
    low = a < 10.0
    while low.any():
        pole |= low & (a == 0.0)
        total += np.where(low & ~pole, a ** -s, 0.0)
        a = np.where(low & ~pole, a + 1.0, np.where(pole, 10.0, a))
        low = a < 10.0
    total += a ** (1.0 - s) / (s - 1.0) + 0.5 * a ** -s
    rising, fact, power = s, 2.0, a ** (-s - 1.0)
    done = np.zeros(a.shape, dtype=bool)
    for j in range(1, 13):
        term = _BERNOULLI[j - 1] / fact * rising * power
        total += np.where(done, 0.0, term)
        done |= np.abs(term) < 1e-17 * np.abs(total)
        rising *= (s + 2.0 * j - 1.0) * (s + 2.0 * j)
        fact *= (2.0 * j + 1.0) * (2.0 * j + 2.0)
        power = power / (a * a)
    return np.where(pole, np.inf, total)


def _np_polygamma_series(n: int, a: np.ndarray) -> np.ndarray:
    """polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1 (special.cpp's polygamma_scalar):
    +inf (odd n) / -inf (even n) at non-positive integers, 0 at +inf, NaN at -inf."""
    if n == 0:
        return _np_digamma_series(a)
    x = np.asarray(a, dtype=_F64)
    pole = (x <= 0) & (x == np.floor(x)) & (x != -np.inf)
    special = np.isnan(x) | np.isinf(x) | pole
    with np.errstate(all="ignore"):
        zeta = _np_hurwitz_zeta(float(n + 1), np.where(special, 1.0, x))
        out = (1.0 if n % 2 == 1 else -1.0) * float(math.factorial(n)) * zeta
    out = np.where(pole, np.inf if n % 2 == 1 else -np.inf, out)
    out = np.where(x == np.inf, 0.0, np.where(x == -np.inf, np.nan, out))
    return np.where(np.isnan(x), x, out)


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
        poles = (a <= 0) & (a == np.floor(a)) & (a != -np.inf)
        out = np.where(poles, np.inf if n % 2 == 1 else -np.inf, out)
        return np.where(a == -np.inf, np.nan, np.where(a == np.inf, 0.0, out))
except ImportError:  # pragma: no cover - exercised where scipy is not installed
    _np_erfinv = _elementwise(_erfinv1)
    _np_lgamma = _elementwise(_lgamma1)
    _np_digamma = _np_digamma_series
    _np_polygamma = _np_polygamma_series


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
erfinv = _unary(lambda a: np.copysign(_np_erfinv(a), a), "erfinv")  # -0.0 -> -0.0, as torch
lgamma = _unary(lambda a: np.where(a == -np.inf, np.inf, _np_lgamma(a)), "lgamma")  # as C's
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
        x, y, _ = _operands(a, b, name)
        if not _dtypes.is_floating(_dtypes.of_array(x)):  # the default dtype, as torch
            x, y = x.astype(_DEFAULT_DTYPE[0].dtype), y.astype(_DEFAULT_DTYPE[0].dtype)
        return _new(np.asarray(np_fn(x, y)).astype(x.dtype, copy=False))

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _numeric_binary(float_fn: Any, int_fn: Any, name: str) -> Any:
    @_quiet
    def kernel(a: Any, b: Any) -> Any:
        x, y, dt = _operands(a, b, name)
        if x.dtype.kind == "b":  # torch has no bool kernel for these: its words
            cpu = {"floor_divide": "div_floor_cpu", "trunc_divide": "div_trunc_cpu"}.get(
                name, name + "_cpu")
            raise RuntimeError(f"\"{cpu}\" not implemented for 'Bool'")
        if x.dtype.kind in "iu":
            # As the C++ kernels: any integer dtype in int64, wrapped back to its own (int8
            # -128 // -1 is -128, as torch); a zero divisor raises torch's ZeroDivisionError.
            if (y == 0).any():
                raise RuntimeError(f"{name}: ZeroDivisionError (an integer divisor is 0)")
            out = np.asarray(int_fn(x.astype(_INT), y.astype(_INT)))
            return _new(out.astype(dt, copy=False))
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


def prod(x: Any, dims: Optional[Sequence[int]] = None, keepdim: bool = False) -> Any:
    a = _arr(x)
    a = a.astype(_INT) if a.dtype.kind == "b" else a
    dims = range(a.ndim) if dims is None else dims  # Note [Kernel defaults] (signatures.py)
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
    if moved.shape[-1] == 0:
        return _new(np.moveaxis(values, -1, d)), _new(np.moveaxis(indices, -1, d))
    best = moved[..., 0].copy()
    at = np.zeros(moved.shape[:-1], _INT)
    for i in range(moved.shape[-1]):
        v = moved[..., i]
        better = v >= best if is_max else v <= best
        take = np.isnan(v) | (~np.isnan(best) & better)
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


# ---------------------------------------------------------------------------------------------
# Scatter copies and masked copies (as scatter.cpp: deterministic, the later write wins)


def scatter(x: Any, dim: int, index: Any, source: Any) -> Any:
    a, ix, src = _arr(x), _arr(index), _arr(source)
    if ix.dtype != _INT:
        raise RuntimeError(f"scatter(): Expected dtype int64 for index, got {ix.dtype}")
    if ix.ndim != a.ndim or src.ndim != a.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    d = _wrap_dim(dim, a.ndim, "scatter")
    if any((i != d and ix.shape[i] > a.shape[i]) or ix.shape[i] > src.shape[i]
           for i in range(a.ndim)):
        raise RuntimeError(f"Expected index {list(ix.shape)} to be no larger than self "
                           f"{list(a.shape)} apart from dimension {d} and to be no larger size "
                           f"than src {list(src.shape)}")
    out = a.copy()
    if a.ndim == 0:
        if ix.size:
            out[...] = src
        return _new(out)
    size = a.shape[d]
    if ((ix < -size) | (ix >= size)).any():
        bad = int(ix[(ix < -size) | (ix >= size)].reshape(-1)[0])
        raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {size}")
    wrapped = np.where(ix < 0, ix + size, ix)
    values = src[tuple(np.s_[: n] for n in ix.shape)].astype(a.dtype)
    grid: list[np.ndarray] = list(np.indices(ix.shape, sparse=True))
    grid[d] = wrapped
    full = [np.broadcast_to(g, ix.shape) for g in grid]
    for pos in np.ndindex(*ix.shape):  # in order: the later write wins, as the C++ kernel
        out[tuple(int(g[pos]) for g in full)] = values[pos]
    return _new(out)


def _bool_mask(mask: Any, name: str) -> np.ndarray:
    m = _arr(mask)
    if m.dtype.kind != "b":
        raise RuntimeError(f"{name}: expected BoolTensor for mask")
    return m


def masked_select(x: Any, mask: Any) -> Any:
    a, m = _arr(x), _bool_mask(mask, "masked_select")
    a, m = np.broadcast_arrays(a, m)
    return _new(a[m].copy())


def masked_scatter(x: Any, mask: Any, source: Any) -> Any:
    a, m, src = _arr(x), _bool_mask(mask, "masked_scatter"), _arr(source)
    m = np.broadcast_to(m, a.shape)
    count = int(m.sum())
    if count > src.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out = a.copy()
    out[m] = src.reshape(-1)[:count].astype(a.dtype)
    return _new(out)


# ---------------------------------------------------------------------------------------------
# Dense linear algebra (numpy's LAPACK; the C++ kernels call the wheel's, lapack.cpp)


def _square(x: Any, name: str) -> np.ndarray:
    a = _arr(x)
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if a.dtype.kind != "f":
        raise RuntimeError(f"{name}: Expected a floating point tensor as input. Got {a.dtype}")
    return a


def det(x: Any) -> Any:
    a = _square(x, "linalg.det")
    return _new(np.linalg.det(a.astype(_F64)).astype(a.dtype))


def slogdet(x: Any) -> tuple:
    a = _square(x, "linalg.slogdet")
    sign, logabs = np.linalg.slogdet(a.astype(_F64))
    return _new(np.asarray(sign).astype(a.dtype)), _new(np.asarray(logabs).astype(a.dtype))


def inverse(x: Any) -> Any:
    a = _square(x, "linalg.inv")
    try:
        return _new(np.linalg.inv(a.astype(_F64)).astype(a.dtype))
    except np.linalg.LinAlgError:
        from transgrad.reference.kernels_linalg import singular_error

        raise singular_error(a, inverting=True) from None


def solve(a: Any, b: Any) -> Any:
    m, r = _square(a, "linalg.solve"), _arr(b)
    if r.ndim < 2 or r.shape[-2] != m.shape[-1]:
        raise RuntimeError("linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({tuple(m.shape)} and {tuple(r.shape)})")
    dtype = m.dtype if r.dtype.kind != "f" or r.dtype == m.dtype else _F64
    batch = broadcast_pair(m.shape[:-2], r.shape[:-2])
    mb = np.broadcast_to(m, batch + m.shape[-2:]).astype(_F64)
    rb = np.broadcast_to(r, batch + r.shape[-2:]).astype(_F64)
    try:
        out = np.linalg.solve(mb, rb) if mb.size and rb.size else np.zeros(rb.shape)
    except np.linalg.LinAlgError:
        from transgrad.reference.kernels_linalg import singular_error

        raise singular_error(mb, inverting=False) from None
    return _new(out.astype(dtype))
