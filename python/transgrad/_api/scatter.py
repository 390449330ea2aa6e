"""PyTorch-style indexing functions over the formulas of formulas/indexing.py: ``take``,
``index_fill``, ``index_copy``, ``scatter`` (src, value, reduce), ``scatter_reduce``,
``masked_select``, ``masked_scatter``, ``rot90``, ``diag_embed``, ``block_diag`` and the
``Tensor.unfold`` windows.

Input: tensors of either engine (indices as int64 tensors or index-like sequences). Output: the
functions of ``__all__`` (exported by both engines; most are Tensor methods too: methods.py) and
``unfold`` (a method only, as torch). Each calls its engine's formula; a 0-d tensor ``value``
stays differentiable (index_fill composes the fill of 0 with ``value`` times the filled mask).

Note [scatter_reduce kernels]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's ``scatter_reduce`` takes the reduction as a string; the formula language has no string
parameters, so each reduction is its own formula (``scatter_reduce_sum``,
``scatter_reduce_mean``). "prod", "amax" and "amin" are compositions (``_scatter_select``): a
one-hot selection ``M[.., j, k, ..] = (index[.., j, ..] == k)`` puts each src element in the
column of its target, the others hold the reduction's identity (1, -inf, +inf), and ``prod`` /
``amax`` / ``amin`` reduce over j (with self as one more row when ``include_self``). Their
backwards are those formulas': prod's handles zeros, amax/amin share the gradient evenly among
equal values, self included, which is torch's rule for scatter_reduce (one difference: with
``include_self=False`` torch still counts a self equal to the result among the ties, so the
src elements get less than the whole gradient; here an excluded self takes no part). Memory is
O(index.numel() * input.size(dim)). ``index_reduce`` is the same with its 1-D index expanded
along ``dim``. Any other string raises torch's RuntimeError.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from transgrad._api import dtype_checks
from transgrad._api import out_args as _out_args
from transgrad._api.functions import as_tensor, on_0d, wrap_dim
from transgrad._backend import backend_of, find_backend, is_tensor

__all__ = ["block_diag", "diag_embed", "index_copy", "index_fill", "index_reduce",
           "masked_scatter", "masked_select", "rot90", "scatter", "scatter_reduce", "take"]

_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _index(x: Any, index: Any) -> Any:
    if is_tensor(index):
        if index.dtype.kind not in "iu":
            raise RuntimeError(f"expected an int64 index tensor, got {index.dtype}")
        if index.dtype.name == "int32":  # torch's scatter takes int32 too (not take's)
            return backend_of(index).ops.cast(index, "int64")
        return index
    return backend_of(x).from_numpy(np.asarray(index, dtype=np.int64, order="C"))


def _bool_mask(mask: Any, fn: str) -> Any:
    if not is_tensor(mask) or mask.dtype.kind != "b":
        raise RuntimeError(f"{fn}: expected BoolTensor for mask")
    return mask


def take(input: Any, index: Any, *, out: Any = None) -> Any:
    """The elements of ``input`` seen as 1-D, at ``index`` (negative ones counted from the
    end, as torch's); the result has index's shape."""
    if out is not None:
        return _out_args.write_out("take", take, (input, index), {}, out)
    idx = _index(input, index)
    a = np.asarray(idx.detach())
    if a.size and a.min() < 0:
        n = input.numel()
        if a.min() < -n:
            raise IndexError(f"out of range: tried to access index {int(a.min())} on a tensor "
                             f"of {n} elements.")
        idx = backend_of(input).from_numpy(np.asarray(np.where(a < 0, a + n, a), dtype=np.int64,
                                                      order="C"))
    return backend_of(input).ops.take(input, idx)


def index_fill(input: Any, dim: int, index: Any, value: Any) -> Any:
    """``input`` with the slices ``index`` along ``dim`` set to ``value`` (a number or a 0-d
    tensor, whose gradient is the sum of the gradient over the filled slices)."""
    if input.ndim == 0:  # (the value stays as given: a number or a 0-d tensor)
        return on_0d(lambda x, d, i: index_fill(x, d, i, value), input, dim, index)
    ops = backend_of(input).ops
    d, idx = wrap_dim(dim, input.ndim), _index(input, index)
    if not is_tensor(value):
        if not input.is_floating_point():  # the value in the input's dtype, as torch's fill
            out = ops.index_fill(input, d, idx, float(_in_dtype(value, input)))
            return ops.cast(out, input.dtype.name)
        return ops.index_fill(input, d, idx, float(value))
    if value.ndim != 0:
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    mask = ops.index_fill(ops.zeros_like(input), d, idx, 1.0)
    out = ops.add(ops.index_fill(input, d, idx, 0.0), ops.mul(mask, ops.cast(
        value, input.dtype.name)))
    return out if input.is_floating_point() else ops.cast(out, input.dtype.name)


def _in_dtype(value: Any, like: Any) -> Any:
    """A number converted to the integer or bool dtype of ``like`` (C++'s: toward zero)."""
    return bool(value) if like.dtype.name == "bool" else math.trunc(value)


def index_copy(input: Any, dim: int, index: Any, source: Any, *, out: Any = None) -> Any:
    """``input`` with its slices ``index[i]`` along ``dim`` replaced by source's slice i."""
    if out is not None:
        return _out_args.write_out("index_copy", index_copy, (input, dim, index, source), {}, out)
    if input.ndim == 0:
        return on_0d(index_copy, input, dim, index, source)
    ops = backend_of(input).ops
    dtype_checks.check_index_copy(input, source)
    return ops.index_copy(input, wrap_dim(dim, input.ndim), _index(input, index), source)


def scatter(input: Any, dim: int, index: Any, src: Any = None, value: Any = None, *,
            reduce: Optional[str] = None, out: Any = None) -> Any:
    """``input`` with src's elements (or ``value``) written at the positions ``index`` names
    along ``dim``; ``reduce="add"`` adds them instead."""
    if out is not None:
        return _out_args.write_out("scatter", scatter, (input, dim, index, src, value),
                                   {"reduce": reduce}, out)
    ops = backend_of(input).ops
    if src is not None and value is not None:
        raise TypeError("scatter() received both src and value")
    if src is None and value is None:
        raise TypeError("scatter() missing required argument 'src' (or 'value')")
    if src is not None and not is_tensor(src):
        src, value = None, src
    if src is not None:
        dtype_checks.check_scatter(input, src)
    d, idx = wrap_dim(dim, input.ndim), _index(input, index)
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce}")
        if reduce == "multiply":
            raise NotImplementedError("scatter(reduce='multiply'): no formula yet "
                                      "(Note [scatter_reduce kernels])")
        if src is None:
            src = ops.zeros_like(ops.cast(idx, input.dtype.name)) + float(value)
        return ops.scatter_add(input, d, idx, src)
    if src is None:
        return ops.scatter_value(input, d, idx, float(value))
    return ops.scatter(input, d, idx, src)


def scatter_reduce(input: Any, dim: int, index: Any, src: Any, reduce: str, *,
                   include_self: bool = True, out: Any = None) -> Any:
    """``input`` with src's elements reduced ("sum" or "mean") into the positions ``index``
    names along ``dim`` (``include_self``: input's own value takes part). Note [scatter_reduce
    kernels]."""
    if out is not None:
        return _out_args.write_out(
            "scatter_reduce", scatter_reduce,
            (input, dim, index, src, reduce),
            {"include_self": include_self}, out)
    if reduce not in _REDUCTIONS:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    dtype_checks.check_scatter(input, src)
    if reduce not in ("sum", "mean"):
        return _scatter_select(input, wrap_dim(dim, input.ndim), _index(input, index), src,
                               reduce, bool(include_self))
    ops = backend_of(input).ops
    if reduce == "mean" and not input.is_floating_point():
        # torch's integer mean is the floor of the quotient, in the input's dtype
        mean = scatter_reduce(ops.cast(input, "float64"), dim, index, ops.cast(src, "float64"),
                              "mean", include_self=include_self)
        return ops.cast(mean.floor(), input.dtype.name)
    f = ops.scatter_reduce_sum if reduce == "sum" else ops.scatter_reduce_mean
    return f(input, wrap_dim(dim, input.ndim), _index(input, index), src, bool(include_self))


_IDENTITY = {"prod": 1.0, "amax": -math.inf, "amin": math.inf}


def _scatter_select(input: Any, d: int, index: Any, src: Any, reduce: str,
                    include_self: bool) -> Any:
    """scatter_reduce for "prod", "amax", "amin" (Note [scatter_reduce kernels])."""
    from transgrad._api import functions as fn
    from transgrad._api.reductions import prod

    if index.ndim != input.ndim or src.ndim != input.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input "
                           "tensor")
    for e in range(input.ndim):
        if index.shape[e] > src.shape[e] or (e != d and index.shape[e] > input.shape[e]):
            raise RuntimeError(f"Size does not match at dimension {e} expected index "
                               f"{list(index.shape)} to be no larger than self "
                               f"{list(input.shape)} apart from dimension {d} and to be no "
                               f"larger than src {list(src.shape)}")
    k = input.shape[d]
    idx = np.asarray(index.numpy())
    if idx.size and (idx.min() < -k or idx.max() >= k):
        bad = int(idx[(idx < -k) | (idx >= k)].reshape(-1)[0])
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {k}")
    B = backend_of(input)
    idx = B.from_numpy(np.asarray(np.where(idx < 0, idx + k, idx), order="C"))
    for e in range(src.ndim):  # src and self restricted to index's extent
        if src.shape[e] != index.shape[e]:
            src = fn.narrow(src, e, 0, index.shape[e])
    region = input
    for e in range(input.ndim):
        if e != d and input.shape[e] != index.shape[e]:
            region = fn.narrow(region, e, 0, index.shape[e])
    columns = [1] * (index.ndim + 1)
    columns[d + 1] = k
    ks = B.from_numpy(np.arange(k, dtype=np.int64).reshape(columns))
    hits = fn.eq(fn.unsqueeze(idx, d + 1), ks)  # (.., j, k, ..)
    identity: Any = _IDENTITY[reduce]
    if input.dtype.name == "bool":  # the identity in the input's dtype, which it keeps
        identity = {"prod": True, "amax": False, "amin": True}[reduce]
    elif not input.is_floating_point():
        info = np.iinfo(input.dtype.dtype)
        identity = {"prod": 1, "amax": int(info.min), "amin": int(info.max)}[reduce]
    cand = fn.where(hits, fn.unsqueeze(src, d + 1), identity)
    if include_self:
        cand = fn.cat([fn.unsqueeze(region, d), cand], d)
    if reduce == "prod":
        out = prod(cand, d)
        if input.dtype.name == "bool":  # prod of bools is int64; torch's scatter keeps bool
            out = B.ops.cast(out, "bool")
    else:
        out = (fn.amax if reduce == "amax" else fn.amin)(cand, d)
    if not include_self:
        out = fn.where(fn.any(hits, d), out, region)
    return _paste(input, out, [e for e in range(input.ndim) if e != d and (
        input.shape[e] != index.shape[e])])


def _paste(input: Any, part: Any, dims: list) -> Any:
    """``input`` with ``part`` written over its leading corner along ``dims`` (differentiable:
    slice_scatter one dim at a time)."""
    from transgrad._api import functions as fn

    if not dims:
        return part
    e, n = dims[0], part.shape[dims[0]]
    inner = _paste(fn.narrow(input, e, 0, n), part, dims[1:])
    return fn.slice_scatter(input, inner, e, 0, n)


def index_reduce(input: Any, dim: int, index: Any, source: Any, reduce: str, *,
                 include_self: bool = True, out: Any = None) -> Any:
    """``input`` with the slices of ``source`` along ``dim`` reduced ("prod", "mean", "amax",
    "amin") into the slices ``index`` names (``include_self``: input's own value takes
    part); scatter_reduce with the 1-D index expanded along ``dim``."""
    if out is not None:
        return _out_args.write_out(
            "index_reduce", index_reduce,
            (input, dim, index, source, reduce),
            {"include_self": include_self}, out)
    from transgrad._api import functions as fn

    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    if input.ndim == 0:
        return on_0d(index_reduce, input, dim, index, source, reduce, include_self=include_self)
    d = wrap_dim(dim, input.ndim)
    idx = _index(input, index)
    if idx.ndim != 1 or idx.shape[0] != source.shape[d]:
        raise IndexError("index_reduce_(): Index should have dimension 1 and the number of "
                         "indices should be equal to source.size(dim)")
    shape = [1] * source.ndim
    shape[d] = idx.shape[0]
    full = fn.expand(fn.reshape(idx, tuple(shape)), tuple(source.shape))
    return scatter_reduce(input, d, full.contiguous(), source, reduce,
                          include_self=include_self)


def masked_select(input: Any, mask: Any, *, out: Any = None) -> Any:
    """The elements of ``input`` where ``mask`` (bool, broadcast) is true, as a 1-D tensor."""
    if out is not None:
        return _out_args.write_out("masked_select", masked_select, (input, mask), {}, out)
    return backend_of(input).ops.masked_select(input, _bool_mask(mask, "masked_select"))


def masked_scatter(input: Any, mask: Any, source: Any) -> Any:
    """``input`` with its masked positions filled, in order, from ``source``."""
    if is_tensor(mask) and mask.dtype.kind != "b":
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {dtype_checks.scalar_name(mask.dtype)}")
    mask = _bool_mask(mask, "masked_scatter")
    dtype_checks.check_masked_scatter(input, source)
    # torch's out-of-place form broadcasts input and mask together (a 1-D input under a 2-D
    # mask gives a 2-D result); the formula fills a mask of input's own shape.
    try:
        shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(mask.shape)))
    except ValueError:
        shape = tuple(input.shape)  # the formula raises torch's error
    if tuple(input.shape) != shape:
        input = input.expand(shape)
    if tuple(mask.shape) != shape:
        mask = mask.expand(shape)
    return backend_of(input).ops.masked_scatter(input, mask, source)


def rot90(input: Any, k: int = 1, dims: Sequence[int] = (0, 1)) -> Any:
    """``input`` rotated by 90 degrees ``k`` times in the plane of ``dims``."""
    return backend_of(input).ops.rot90(input, int(k), tuple(int(d) for d in dims))


def diag_embed(input: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
    """A tensor whose diagonal (``offset``) in the plane (dim1, dim2) holds input's last dim."""
    return backend_of(input).ops.diag_embed(input, int(offset), int(dim1), int(dim2))


def block_diag(*tensors: Any) -> Any:
    """The tensors (0-d, 1-D as a row, or 2-D) on the diagonal of one matrix."""
    backend = find_backend(tensors)
    if backend is None:
        raise TypeError("block_diag(): expected Tensor arguments")
    return backend.ops.block_diag([as_tensor(t, tensors[0]) for t in tensors])


def unfold(self: Any, dimension: int, size: int, step: int) -> Any:
    """``Tensor.unfold``: the windows of ``size`` along ``dimension``, ``step`` apart, as a new
    last dim (a copy here, not a view). A 0-d tensor is a 1-element 1-D one, the result 1-D."""
    ops = backend_of(self).ops
    if self.ndim == 0:
        wrap_dim(dimension, 0)
        return ops.reshape(ops.unfold(ops.reshape(self, (1,)), 0, int(size), int(step)), (-1,))
    return ops.unfold(self, int(dimension), int(size), int(step))
