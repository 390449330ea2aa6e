"""PyTorch-style reductions and scans over the formulas of formulas/scan.py and reduce.py:
``prod``, ``cumprod``, ``logcumsumexp``, ``cummax``/``cummin``, ``kthvalue``, ``median``,
``aminmax``, ``nansum``.

Input: tensors of either engine. Output: the functions of ``__all__`` (exported by both engines,
Tensor methods too: methods.py), returning torch's named tuples where torch does (``values``,
``indices``; ``min``, ``max``). Each calls its engine's formula (``backend_of``), so values and
gradients of every order come from the formulas.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from transgrad import return_types
from transgrad._api import out_args as _out_args
from transgrad._api.functions import cast, dims_arg, wrap_dim
from transgrad._backend import backend_of
from transgrad._dtypes import is_floating_or_complex

__all__ = ["aminmax", "cummax", "cummin", "cumprod", "kthvalue", "logcumsumexp", "median",
           "nansum", "prod"]



def _dtyped(input: Any, dtype: Any) -> Any:
    return input if dtype is None else cast(input, dtype)


def prod(input: Any, dim: Optional[int] = None, keepdim: bool = False, *,
         dtype: Any = None, out: Any = None) -> Any:
    """The product of all elements, or over ``dim`` (an int, as torch). Gradients are exact
    with zeros in the input."""
    if out is not None:
        return _out_args.write_out("prod", prod, (input, dim, keepdim), {"dtype": dtype}, out)
    x = _dtyped(input, dtype)
    if dim is None:
        return backend_of(x).ops.prod(x, None, False)
    if not isinstance(dim, int):
        raise TypeError(f"prod(): argument 'dim' must be int, not {type(dim).__name__}")
    return backend_of(x).ops.prod(x, (wrap_dim(dim, x.ndim),), bool(keepdim))


def nansum(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
           out: Any = None) -> Any:
    """The sum over ``dim`` (all by default) treating NaN as zero."""
    if out is not None:
        return _out_args.write_out("nansum", nansum, (input, dim, keepdim), {"dtype": dtype}, out)
    x = _dtyped(input, dtype)
    return backend_of(x).ops.nansum(x, dims_arg(dim, x.ndim), bool(keepdim))


def aminmax(input: Any, *, dim: Optional[int] = None, keepdim: bool = False,
            out: Any = None) -> Any:
    """(min, max) over ``dim`` (all elements when None)."""
    if out is not None:
        return _out_args.write_out("aminmax", aminmax, (input,),
                                   {"dim": dim, "keepdim": keepdim}, out)
    if input.ndim and 0 in input.shape and dim is None:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    ops = backend_of(input).ops
    return return_types.aminmax(ops.aminmax(input, None if dim is None else int(dim),
                                              bool(keepdim)))


def cumprod(input: Any, dim: int, *, dtype: Any = None, out: Any = None) -> Any:
    """The cumulative product along ``dim`` (exact gradients with zeros)."""
    if out is not None:
        return _out_args.write_out("cumprod", cumprod, (input, dim), {"dtype": dtype}, out)
    x = _dtyped(input, dtype)
    d = wrap_dim(dim, x.ndim)
    if not is_floating_or_complex(x.dtype):
        # torch's integer cumprod is int64, exact and wrapping; the kernel's is floating point
        # (a float64 result, inexact past 2**53). Integer tensors never require grad.
        a = np.asarray(x).astype(np.int64)
        with np.errstate(over="ignore"):
            out = np.cumprod(a, axis=d).reshape(a.shape)  # numpy's is 1-d for a 0-d input
            return backend_of(x).from_numpy(np.asarray(out, order="C"))
    return backend_of(x).ops.cumprod(x, d)


def logcumsumexp(input: Any, dim: int, *, out: Any = None) -> Any:
    """``log(cumsum(exp(input), dim))``, computed stably."""
    if out is not None:
        return _out_args.write_out("logcumsumexp", logcumsumexp, (input, dim), {}, out)
    return backend_of(input).ops.logcumsumexp(input, wrap_dim(dim, input.ndim))


def _bool_running(name: str, input: Any, dim: int) -> Any:
    """cummax/cummin of a bool tensor: computed on its int64 cast, the values bool again (as
    torch's)."""
    ops = backend_of(input).ops
    values, indices = getattr(ops, name)(ops.cast(input, "int64"), wrap_dim(dim, input.ndim))
    return getattr(return_types, name)((ops.cast(values, "bool"), indices))


def cummax(input: Any, dim: int, *, out: Any = None) -> Any:
    """(values, indices) of the running maximum along ``dim``."""
    if out is not None:
        return _out_args.write_out("cummax", cummax, (input, dim), {}, out)
    if input.dtype.name == "bool":
        return _bool_running("cummax", input, dim)
    return return_types.cummax(backend_of(input).ops.cummax(input, wrap_dim(dim, input.ndim)))


def cummin(input: Any, dim: int, *, out: Any = None) -> Any:
    """(values, indices) of the running minimum along ``dim``."""
    if out is not None:
        return _out_args.write_out("cummin", cummin, (input, dim), {}, out)
    if input.dtype.name == "bool":
        return _bool_running("cummin", input, dim)
    return return_types.cummin(backend_of(input).ops.cummin(input, wrap_dim(dim, input.ndim)))


def kthvalue(input: Any, k: int, dim: Optional[int] = None, keepdim: bool = False, *,
             out: Any = None) -> Any:
    """(values, indices) of the ``k``-th smallest element (k from 1) along ``dim`` (the last
    by default)."""
    if out is not None:
        return _out_args.write_out("kthvalue", kthvalue, (input, k, dim, keepdim), {}, out)
    d = wrap_dim(-1 if dim is None else dim, input.ndim)
    if input.ndim == 0:  # torch's: a 0-d input is its one element, with index 0
        values, indices = kthvalue(input.reshape(1), k, 0)
        return return_types.kthvalue((values, indices))
    return return_types.kthvalue(backend_of(input).ops.kthvalue(input, int(k), d,
                                                                bool(keepdim)))


def median(input: Any, dim: Optional[int] = None, keepdim: bool = False, *, out: Any = None) -> Any:
    """The lower median of all elements, or (values, indices) along ``dim``."""
    if out is not None:
        return _out_args.write_out("median", median, (input, dim, keepdim), {}, out)
    ops = backend_of(input).ops
    # Note [Median of NaN]: torch's median is NaN where a NaN is present (the index is the
    # first NaN's); the kernels select the middle of an order that puts NaN last.
    nan = (input.is_floating_point() and input.ndim > 0 and input.numel() > 0
           and bool(input.isnan().any()))
    if dim is None:
        if nan:  # torch's gradient is shared evenly among the NaN elements
            flat = input.reshape(-1)
            isnan = flat.isnan()
            return ops.where(isnan, flat, flat.new_zeros(tuple(flat.shape))).sum() / isnan.sum()
        return ops.median(input)
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0:  # as kthvalue's: the element and index 0, keepdim or not
        values, indices = median(input.reshape(1), 0)
        return return_types.median((values, indices))
    values, indices = ops.median_dim(input, d, bool(keepdim))
    if nan:
        isnan = input.isnan()
        at = indices if keepdim else indices.unsqueeze(d)
        at = ops.where(isnan.any(d, keepdim=True), isnan.long().argmax(d, keepdim=True), at)
        values = input.gather(d, at)
        indices = at
        if not keepdim:
            values, indices = values.squeeze(d), indices.squeeze(d)
    return return_types.median((values, indices))
