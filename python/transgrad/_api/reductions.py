"""PyTorch-style reductions and scans over the formulas of formulas/scan.py and reduce.py:
``prod``, ``cumprod``, ``logcumsumexp``, ``cummax``/``cummin``, ``kthvalue``, ``median``,
``aminmax``, ``nansum``.

Input: tensors of either engine. Output: the functions of ``__all__`` (exported by both engines,
Tensor methods too: methods.py), returning torch's named tuples where torch does (``values``,
``indices``; ``min``, ``max``). Each calls its engine's formula (``backend_of``), so values and
gradients of every order come from the formulas.
"""

from __future__ import annotations

import collections
from typing import Any, Optional

from transgrad._api.functions import cast, dims_arg, wrap_dim
from transgrad._backend import backend_of

__all__ = ["aminmax", "cummax", "cummin", "cumprod", "kthvalue", "logcumsumexp", "median",
           "nansum", "prod"]

ValuesIndices = collections.namedtuple("ValuesIndices", ["values", "indices"])
AminmaxResult = collections.namedtuple("AminmaxResult", ["min", "max"])


def _dtyped(input: Any, dtype: Any) -> Any:
    return input if dtype is None else cast(input, dtype)


def prod(input: Any, dim: Optional[int] = None, keepdim: bool = False, *,
         dtype: Any = None) -> Any:
    """The product of all elements, or over ``dim`` (an int, as torch). Gradients are exact
    with zeros in the input."""
    x = _dtyped(input, dtype)
    if dim is None:
        return backend_of(x).ops.prod(x, None, False)
    if not isinstance(dim, int):
        raise TypeError(f"prod(): argument 'dim' must be int, not {type(dim).__name__}")
    return backend_of(x).ops.prod(x, (wrap_dim(dim, x.ndim),), bool(keepdim))


def nansum(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
    """The sum over ``dim`` (all by default) treating NaN as zero."""
    x = _dtyped(input, dtype)
    return backend_of(x).ops.nansum(x, dims_arg(dim, x.ndim), bool(keepdim))


def aminmax(input: Any, *, dim: Optional[int] = None, keepdim: bool = False) -> Any:
    """(min, max) over ``dim`` (all elements when None)."""
    if input.ndim and 0 in input.shape and dim is None:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    ops = backend_of(input).ops
    return AminmaxResult(*ops.aminmax(input, None if dim is None else int(dim),
                                      bool(keepdim)))


def cumprod(input: Any, dim: int, *, dtype: Any = None) -> Any:
    """The cumulative product along ``dim`` (exact gradients with zeros)."""
    x = _dtyped(input, dtype)
    return backend_of(x).ops.cumprod(x, wrap_dim(dim, x.ndim))


def logcumsumexp(input: Any, dim: int) -> Any:
    """``log(cumsum(exp(input), dim))``, computed stably."""
    return backend_of(input).ops.logcumsumexp(input, wrap_dim(dim, input.ndim))


def cummax(input: Any, dim: int) -> Any:
    """(values, indices) of the running maximum along ``dim``."""
    return ValuesIndices(*backend_of(input).ops.cummax(input, wrap_dim(dim, input.ndim)))


def cummin(input: Any, dim: int) -> Any:
    """(values, indices) of the running minimum along ``dim``."""
    return ValuesIndices(*backend_of(input).ops.cummin(input, wrap_dim(dim, input.ndim)))


def kthvalue(input: Any, k: int, dim: Optional[int] = None, keepdim: bool = False) -> Any:
    """(values, indices) of the ``k``-th smallest element (k from 1) along ``dim`` (the last
    by default)."""
    d = wrap_dim(-1 if dim is None else dim, input.ndim)
    return ValuesIndices(*backend_of(input).ops.kthvalue(input, int(k), d, bool(keepdim)))


def median(input: Any, dim: Optional[int] = None, keepdim: bool = False) -> Any:
    """The lower median of all elements, or (values, indices) along ``dim``."""
    ops = backend_of(input).ops
    if dim is None:
        return ops.median(input)
    d = wrap_dim(dim, input.ndim)
    return ValuesIndices(*ops.median_dim(input, d, bool(keepdim)))
