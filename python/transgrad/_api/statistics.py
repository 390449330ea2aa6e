"""Order statistics, NaN-aware means and second moments: ``quantile``, ``nanquantile``,
``nanmean``, ``cov``, ``corrcoef``.

Input: floating tensors of either engine. Output: tensors of that engine built from
differentiable ops (``sort``, ``gather``, ``where``, ``sum``), so gradients flow to the entries
that were picked or averaged, as torch's. Signatures, interpolation modes and errors are
torch's.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

import numpy as np

from transgrad._api import extra_functions as xfn
from transgrad._api import functions as fn
from transgrad._api import out_args as _out_args
from transgrad._api.inplace import _TORCH_NAMES
from transgrad._backend import backend_of, is_tensor
from transgrad._dtypes import is_floating, is_integral

__all__ = ["quantile", "nanquantile", "nanmean", "cov", "corrcoef"]

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def nanmean(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
            out: Any = None) -> Any:
    """The mean of the non-NaN entries (over ``dim``); NaN where every entry is NaN."""
    if out is not None:
        return _out_args.write_out("nanmean", nanmean, (input, dim, keepdim), {"dtype": dtype}, out)
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
    # torch's quantile is made of ops, so a q that requires grad gets one through linear
    # interpolation's weights (rank - floor(rank), rank = q * (valid - 1)); the other modes'
    # weights are constants
    q_grad = interpolation == "linear" and is_tensor(q) and q.requires_grad
    outs = []
    for k, qv in enumerate(qs.reshape(-1)):
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
        a, b = (fn.gather(values, d, B.from_numpy(np.asarray(np.broadcast_to(i, shape), order="C")))
                for i in (lo_i, hi_i))
        w = B.from_numpy(np.asarray(np.broadcast_to(frac, shape).astype(x.dtype.dtype), order="C"))
        if q_grad:
            q_k = fn.cast(q if q.ndim == 0 else q[k], x.dtype)
            floor = B.from_numpy(np.asarray(lo, dtype=x.dtype.dtype, order="C"))
            w = fn.sub(fn.mul(q_k, fn.sub(valid, 1.0)), floor)
        out = fn.add(a, fn.mul(fn.sub(b, a), w))
        if not ignore_nan:  # a NaN anywhere in the slice makes its quantile NaN
            has_nan = fn.sum(fn.cast(fn.isnan(x), x.dtype), d, True)
            out = fn.where(fn.gt(has_nan, 0), fn.add(out, float("nan")), out)
        else:
            out = fn.where(fn.eq(valid, 0), fn.add(out, float("nan")), out)
        if dim is None or input.ndim == 0:  # a 0-d input's quantile is 0-d, keepdim or not
            out = fn.reshape(out, (1,) * input.ndim if keepdim else ())
        elif not keepdim:
            out = fn.squeeze(out, d)
        outs.append(out)
    return outs[0] if qs.ndim == 0 else fn.stack(outs, 0)


def quantile(input: Any, q: Any, dim: Optional[int] = None, keepdim: bool = False, *,
             interpolation: str = "linear", out: Any = None) -> Any:
    """The ``q``-th quantiles (a number or 1-d tensor in [0, 1]) over ``dim`` (all entries when
    None), interpolated between the two nearest order statistics as ``interpolation`` says."""
    if out is not None:
        return _out_args.write_out("quantile", quantile, (input, q, dim, keepdim),
                                   {"interpolation": interpolation}, out)
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input: Any, q: Any, dim: Optional[int] = None, keepdim: bool = False, *,
                interpolation: str = "linear", out: Any = None) -> Any:
    """``quantile`` ignoring NaNs (NaN where a slice holds nothing else)."""
    if out is not None:
        return _out_args.write_out("nanquantile", nanquantile, (input, q, dim, keepdim),
                                   {"interpolation": interpolation}, out)
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")



def _torch_name(dtype: Any) -> str:
    return _TORCH_NAMES.get(dtype.name, dtype.name)


def _check_weights(w: Any, kind: str, n: int) -> None:
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {kind} to have one or fewer dimensions but got "
                           f"{kind} with {w.ndim} dimensions")
    if kind == "fweights" and not is_integral(w.dtype):
        raise RuntimeError("cov(): expected fweights to have integral dtype but got fweights "
                           f"with {_torch_name(w.dtype)} dtype")
    if kind == "aweights" and not is_floating(w.dtype):
        raise RuntimeError("cov(): expected aweights to have floating point dtype but got "
                           f"aweights with {_torch_name(w.dtype)} dtype")
    if w.numel() != n:
        raise RuntimeError(f"cov(): expected {kind} to have the same numel as there are "
                           f"observations in the input but got {w.numel()} != {n}")
    if bool(np.any(np.asarray(w.detach()) < 0)):
        raise RuntimeError(f"cov(): {kind} cannot be negative")


def cov(input: Any, *, correction: int = 1, fweights: Any = None, aweights: Any = None) -> Any:
    """The covariance matrix of the variables in the rows of ``input`` (a 1-d input is one
    variable), the columns being observations, weighted by the integer frequencies
    ``fweights`` and the observation weights ``aweights``; ``correction=1`` is Bessel's.
    torch's formula and errors: degrees of freedom <= 0 warn and give inf/nan."""
    if input.ndim > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.ndim} dimensions")
    x = input if input.ndim == 2 else fn.reshape(input, (1, -1))
    if not is_floating(x.dtype):  # as torch's true division of the integer mean
        x = fn.cast(x, backend_of(x).default_dtype)
    n = x.shape[1]
    w = None
    for kind, given in (("fweights", fweights), ("aweights", aweights)):
        if given is not None:
            _check_weights(given, kind, n)
            w = given if w is None else fn.mul(w, given)
    if w is not None:
        w = fn.cast(w, x.dtype)
        w_sum = fn.sum(w)
        avg = fn.div(fn.sum(fn.mul(x, w), 1), w_sum)
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = fn.sub(w_sum, correction)
        else:
            norm = fn.sub(w_sum, fn.div(fn.mul(fn.sum(fn.mul(w, fn.cast(aweights, x.dtype))),
                                               correction), w_sum))
        norm_value = float(np.asarray(norm.detach()))
    else:
        avg = fn.mean(x, 1)
        norm_value = float(n - correction)
        norm = norm_value
    if norm_value <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm = 0.0
    xm = fn.sub(x, fn.unsqueeze(avg, 1))
    c = fn.mm(xm, fn.transpose(xm if w is None else fn.mul(xm, w), 0, 1))
    return fn.squeeze(fn.div(c, norm))


def corrcoef(input: Any) -> Any:
    """Pearson's correlation coefficients of the rows of ``input``: ``cov`` normalised by the
    standard deviations and clipped to [-1, 1], as torch's (a single variable gives c / c)."""
    c = cov(input)
    if c.ndim == 0:
        return fn.div(c, c)
    std = fn.sqrt(fn.diagonal(c))
    c = fn.div(fn.div(c, fn.unsqueeze(std, 1)), fn.unsqueeze(std, 0))
    return fn.clamp(c, -1.0, 1.0)
