"""``x[...]`` and ``x[...] = v``, decomposed into differentiable ops.

Reading: ints -> select, slices (positive steps) -> slice, None -> unsqueeze, Ellipsis expands,
one integer list/array/int64 tensor -> index_select (reshaped for a multi-dimensional index), one
bool mask -> reshape + index_select of its nonzero positions. Results match numpy's shapes,
including numpy's rule that advanced indices separated by a slice move to the front.

Writing: without autograd, straight into the storage (numpy indexing, version bumped); with
autograd, out of place (``where(mask, scattered values, x)``) then written in place.

Results of basic indexing are registered as views of ``x`` (views.py), so that an in-place op
on such a view while recording rewrites its base too (Note [In-place on views]).
"""

from __future__ import annotations

import math
import operator
from typing import Any, List, Tuple

import numpy as np

from transgrad._api import functions as fn
from transgrad._api.inplace import run_inplace
from transgrad._api.views import registry_for
from transgrad._backend import backend_of, is_tensor

_I64 = np.dtype("int64")


def _items(index: Any) -> List[Any]:
    """Classify each index entry: None, Ellipsis, slice, int, ("array", a, tensor) or
    ("mask", a)."""
    out: List[Any] = []
    for it in index if isinstance(index, tuple) else (index,):
        if it is None or it is Ellipsis or isinstance(it, slice):
            out.append(it)
        elif isinstance(it, (bool, np.bool_)):
            raise IndexError("indexing with a Python bool is not supported")
        elif isinstance(it, (int, np.integer)):
            out.append(int(it))
        elif isinstance(it, (list, tuple, np.ndarray)) or is_tensor(it):
            a = np.asarray(it.detach() if is_tensor(it) and it.requires_grad else it)
            if a.dtype == np.bool_:
                out.append(("mask", a))
            elif a.dtype.kind in "iu" or a.size == 0:
                if a.ndim == 0:
                    out.append(int(a))
                else:
                    given = it if is_tensor(it) and it.dtype == _I64 and it.ndim == 1 else None
                    out.append(("array", a.astype(_I64), given))
            else:
                raise IndexError("tensors used as indices must be long, int or bool tensors")
        else:
            raise TypeError(f"unsupported index type {type(it).__name__}: use ints, slices, "
                            "None, ..., or one integer/bool array or tensor")
    return out


def _expand_ellipsis(items: List[Any], ndim: int) -> List[Any]:
    consumed = sum(1 for i in items if isinstance(i, (int, slice)) or
                   (isinstance(i, tuple) and i[0] == "array"))
    consumed += sum(i[1].ndim for i in items if isinstance(i, tuple) and i[0] == "mask")
    n_ell = sum(1 for i in items if i is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    out: List[Any] = []
    for i in items:
        out.extend([slice(None)] * (ndim - consumed) if i is Ellipsis else [i])
    return out


def getitem(x: Any, index: Any) -> Any:
    """``x[index]`` (Tensor.__getitem__): a basic index gives a registered view."""
    out, is_view = _get(x, index)
    if is_view:
        registry_for(backend_of(x)).add(out, x, (lambda b: _get(b, index)[0], (), {}))
    return out


def _get(x: Any, index: Any) -> Tuple[Any, bool]:
    B = backend_of(x)
    ops = B.ops
    items = _expand_ellipsis(_items(index), x.ndim)
    adv = [k for k, i in enumerate(items) if isinstance(i, tuple)]
    if len(adv) > 1:
        raise NotImplementedError("transgrad indexing supports one integer/bool array index "
                                  "per expression; index in steps, or use index_select/"
                                  "gather")
    out, dim = x, 0
    adv_dim, adv_nd = -1, 0
    for it in items:
        if it is None:
            out = ops.unsqueeze(out, dim)
            dim += 1
        elif isinstance(it, int):
            size = out.shape[dim]
            if not -size <= it < size:
                raise IndexError(f"index {it} is out of bounds for dimension {dim} with size "
                                 f"{size}")
            out = ops.select(out, dim, it)
        elif isinstance(it, slice):
            step = 1 if it.step is None else operator.index(it.step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if it.start is not None or it.stop is not None or step != 1:
                start = None if it.start is None else operator.index(it.start)
                stop = None if it.stop is None else operator.index(it.stop)
                out = ops.slice(out, dim, start, stop, step)
            dim += 1
        elif it[0] == "array":
            a, given = it[1], it[2]
            # Python indexing wraps negative entries; index_select itself refuses them (torch)
            size = out.shape[dim]
            flat_a = np.asarray(a.reshape(-1), dtype=_I64)
            if flat_a.size and flat_a.min() < 0:
                bad = flat_a < -size
                if np.any(bad):
                    raise IndexError(f"index {int(flat_a[bad][0])} is out of bounds for "
                                     f"dimension {dim} with size {size}")
                flat = B.from_numpy(np.where(flat_a < 0, flat_a + size, flat_a))
            else:
                flat = given if given is not None else B.from_numpy(
                    np.ascontiguousarray(flat_a))
            out = ops.index_select(out, dim, flat)
            if a.ndim != 1:
                shape = tuple(out.shape)
                out = ops.reshape(out, shape[:dim] + a.shape + shape[dim + 1:])
            adv_dim, adv_nd = dim, a.ndim
            dim += a.ndim
        else:  # mask
            a = it[1]
            shape = tuple(out.shape)
            if shape[dim:dim + a.ndim] != a.shape:
                raise IndexError(f"The shape of the mask {a.shape} at index {dim} does not "
                                 f"match the shape of the indexed tensor {shape}")
            flat = shape[:dim] + (math.prod(a.shape),) + shape[dim + a.ndim:]
            out = ops.reshape(out, flat)
            out = ops.index_select(out, dim, B.from_numpy(np.flatnonzero(a).astype(_I64)))
            adv_dim, adv_nd = dim, 1
            dim += 1
    if adv and adv_dim > 0 and _separated(items, adv[0]):
        # numpy: ints and an array separated by a slice -> the array's dims go first
        order = (tuple(range(adv_dim, adv_dim + adv_nd)) + tuple(range(adv_dim))
                 + tuple(range(adv_dim + adv_nd, out.ndim)))
        out = ops.permute(out, order)
    if out is x and x.ndim:
        out = ops.slice(x, 0, None, None, 1)  # x[...] is a new view, not x itself
    return out, not adv and out is not x


def _separated(items: List[Any], k: int) -> bool:
    """Whether an int index and the array index at ``k`` are separated by a slice/None."""
    ints = [j for j, i in enumerate(items) if isinstance(i, int) and not isinstance(i, bool)]
    if not ints:
        return False
    lo, hi = min(ints + [k]), max(ints + [k])
    return any(not isinstance(items[j], int) and j != k for j in range(lo, hi + 1))


def _numpy_index(index: Any) -> Any:
    def conv(i: Any) -> Any:
        if is_tensor(i):
            return np.asarray(i.detach() if i.requires_grad else i)
        return i

    return tuple(conv(i) for i in index) if isinstance(index, tuple) else conv(index)


def setitem(x: Any, index: Any, value: Any) -> None:
    """``x[index] = value`` (Tensor.__setitem__)."""
    B = backend_of(x)
    ag = B.autograd
    npi = _numpy_index(index)
    recording = ag.is_grad_enabled() and (
        x.requires_grad or (is_tensor(value) and value.requires_grad))
    if not recording:
        src = np.asarray(value.detach() if is_tensor(value) and value.requires_grad
                         else value)
        np.asarray(x.detach() if x.requires_grad else x)[npi] = src
        x._bump_version()
        return
    n = math.prod(x.shape)
    positions = np.arange(n, dtype=_I64).reshape(tuple(x.shape))[npi]
    mask = np.zeros(n, dtype=bool)
    mask[positions.reshape(-1)] = True

    def compute(xc: Any) -> Any:
        v = fn.cast(fn.as_tensor(value, xc), xc.dtype)
        extra = v.ndim - positions.ndim
        if extra > 0:  # as numpy: leading size-1 dims of the value are dropped
            if any(s != 1 for s in v.shape[:extra]):
                raise RuntimeError(f"shape mismatch: value tensor of shape {tuple(v.shape)} "
                                   f"cannot be broadcast to indexing result of shape "
                                   f"{positions.shape}")
            v = fn.reshape(v, tuple(v.shape[extra:]))
        v = fn.reshape(fn.expand(v, positions.shape), (-1,))
        zeros = B.from_numpy(np.zeros(n, xc.dtype))
        flat = ops_index_add(zeros, v)
        return fn.where(B.from_numpy(mask.reshape(tuple(x.shape))),
                          fn.reshape(flat, tuple(x.shape)), xc)

    def ops_index_add(zeros: Any, v: Any) -> Any:
        return B.ops.index_add(zeros, 0, B.from_numpy(positions.reshape(-1).copy()), v)

    run_inplace(x, compute, (value,), None)  # where() saves only the mask: no copy of x
