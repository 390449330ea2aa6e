"""Order statistics and NaN-aware means: ``quantile``, ``nanquantile``, ``nanmean``.

Input: floating tensors of either engine. Output: tensors of that engine built from
differentiable ops (``sort``, ``gather``, ``where``, ``sum``), so gradients flow to the entries
that were picked or averaged, as torch's. Signatures, interpolation modes and errors are
torch's.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from transgrad._api import extra_functions as xfn
from transgrad._api import functions as fn
from transgrad._api.inplace import _TORCH_NAMES
from transgrad._backend import backend_of, is_tensor

__all__ = ["quantile", "nanquantile", "nanmean"]

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def nanmean(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
    """The mean of the non-NaN entries (over ``dim``); NaN where every entry is NaN."""
    if input.dtype.name not in ("float32", "float64") and dtype is None:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex "
                           f"dtype but got {_TORCH_NAMES[input.dtype.name]}")
    x = input if dtype is None else fn.cast(input, dtype)
    keep = fn.logical_not(fn.isnan(x))
    total = fn.sum(fn.where(keep, x, 0.0), dim, keepdim)
    count = fn.sum(fn.cast(keep, x.dtype), dim, keepdim)
    return fn.div(total, count)


def _quantile(input: Any, q: Any, dim: Optional[int], keepdim: bool, interpolation: str,
              ignore_nan: bool, name: str) -> Any:
    B = backend_of(input)
    if input.dtype.name not in ("float32", "float64"):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in _MODES:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest. Got {interpolation}")
    qs = np.asarray(q.detach() if is_tensor(q) else q, dtype=np.float64)
    if qs.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if np.any((qs < 0) | (qs > 1)):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    x = fn.reshape(input, (-1,)) if dim is None else input
    d = 0 if dim is None else dim % max(x.ndim, 1)
    if x.ndim == 0:
        x, d = fn.reshape(x, (1,)), 0
    n = x.shape[d]
    if n == 0:
        raise IndexError(f"{name}() input tensor must be non-empty")
    values = xfn.sort(x, d).values  # NaNs sort last
    if ignore_nan:
        valid = fn.sum(fn.cast(fn.logical_not(fn.isnan(x)), x.dtype), d, True)
    else:
        valid = B.from_numpy(np.full((1,) * x.ndim, float(n), dtype=x.dtype.dtype))
    vals_np = np.asarray(valid.detach())
    outs = []
    for qv in qs.reshape(-1):
        rank = qv * (vals_np - 1)
        lo = np.floor(rank)
        hi = np.ceil(rank)
        if interpolation == "lower":
            hi = lo
        elif interpolation == "higher":
            lo = hi
        elif interpolation == "nearest":
            lo = hi = np.round(rank)  # half to even, as torch's
        frac = np.where(interpolation == "midpoint", 0.5, rank - lo) if interpolation in (
            "linear", "midpoint") else np.zeros_like(rank)
        lo_i = np.clip(lo, 0, n - 1).astype(np.int64)
        hi_i = np.clip(hi, 0, n - 1).astype(np.int64)
        shape = list(x.shape)
        shape[d] = 1
        a, b = (fn.gather(values, d, B.from_numpy(np.ascontiguousarray(np.broadcast_to(i, shape))))
                for i in (lo_i, hi_i))
        w = B.from_numpy(np.ascontiguousarray(np.broadcast_to(frac, shape).astype(x.dtype.dtype)))
        out = fn.add(a, fn.mul(fn.sub(b, a), w))
        if not ignore_nan:  # a NaN anywhere in the slice makes its quantile NaN
            has_nan = fn.sum(fn.cast(fn.isnan(x), x.dtype), d, True)
            out = fn.where(fn.gt(has_nan, 0), fn.add(out, float("nan")), out)
        else:
            out = fn.where(fn.eq(valid, 0), fn.add(out, float("nan")), out)
        if dim is None:
            out = fn.reshape(out, (1,) * input.ndim if keepdim else ())
        elif not keepdim:
            out = fn.squeeze(out, d)
        outs.append(out)
    return outs[0] if qs.ndim == 0 else fn.stack(outs, 0)


def quantile(input: Any, q: Any, dim: Optional[int] = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Any:
    """The ``q``-th quantiles (a number or 1-d tensor in [0, 1]) over ``dim`` (all entries when
    None), interpolated between the two nearest order statistics as ``interpolation`` says."""
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input: Any, q: Any, dim: Optional[int] = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Any:
    """``quantile`` ignoring NaNs (NaN where a slice holds nothing else)."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")

