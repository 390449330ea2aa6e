"""``x[...]``, ``x[...] = v``, ``index_put`` and ``index_put_``, as torch's.

Reading: the index becomes a tuple by torch's rule (Note [Index sequences]); ints -> select,
slices (positive steps) -> slice, None -> unsqueeze (a Python bool too, then indexed by [0] or
[] as torch), Ellipsis expands, each
applied as a view in order. What remains are the advanced indices: integer lists, arrays and
int64/int32 tensors, and bool (or uint8) masks, which stand for their nonzero positions, one index
per masked dim. They go to the ``index_tensor`` formula (torch's ``aten::index``, node
``IndexBackward0``) with the dims of the view they index: the index tensors broadcast together,
and their shape replaces the indexed dims where those are adjacent, or comes first where a slice
separates them (Note [Advanced indexing kernels] in csrc/kernels/index.cpp). As in torch, an int
is a select, not an advanced index: ``x[0, :, [1, 2]]`` has shape (x.shape[1], 2), where numpy
would give (2, x.shape[1]).

Writing: the same walk gives the view the basic part selects (registered, so an in-place write
into it while recording rewrites ``x``, Note [In-place on views]) and the advanced indices; the
value is broadcast to the indexed shape and written with the ``index_put`` formula (node
``IndexPutBackward0``; gradients to ``x`` and to the value), or copied when there is no advanced
index. Without autograd the write goes straight into the storage through numpy, after the same
checks.

Results of basic indexing are registered as views of ``x`` (views.py).
"""

from __future__ import annotations

import operator
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from transgrad._api import dtype_checks
from transgrad._api import functions as fn
from transgrad._api.inplace import run_inplace
from transgrad._api.views import registry_for
from transgrad._backend import backend_of, is_tensor

_I64 = np.dtype("int64")
_INDEX_DTYPES = ("int64", "int32")
_MASK_DTYPES = ("bool", "uint8")
_BAD_TENSOR = "tensors used as indices must be long, int, byte or bool tensors"

# Note [Index sequences]
# ~~~~~~~~~~~~~~~~~~~~~~
# torch (after numpy's old rule) reads a list as a tuple of indices when it is shorter than 32
# and holds a tensor, an array, a sequence, a slice, Ellipsis or None: ``x[[[0, 4], [2, 2]]]``
# is ``x[[0, 4], [2, 2]]`` (two elements), not one 2-D index. Any other list is one index.


def _as_tuple(index: Any) -> tuple:
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and len(index) < 32 and any(
            it is None or it is Ellipsis or isinstance(it, (slice, list, tuple, np.ndarray))
            or is_tensor(it) for it in index):
        return tuple(index)
    return (index,)


class _Adv:
    """An advanced index: an int64 index tensor (``given``, passed as is) or array."""

    __slots__ = ("given", "array", "shape", "fresh")

    def __init__(self, given: Any, array: Optional[np.ndarray], fresh: bool = False):
        self.given, self.array, self.fresh = given, array, fresh  # fresh: on a new dim (bool)
        self.shape = tuple(given.shape) if given is not None else array.shape  # type: ignore


class _Mask:
    __slots__ = ("array",)

    def __init__(self, array: np.ndarray):
        self.array = array


def _int_array(a: np.ndarray) -> np.ndarray:
    """An integer index array as int64, refusing what int64 cannot hold (no silent wrap)."""
    if a.dtype.kind == "u" and a.size and int(a.max()) > np.iinfo(np.int64).max:
        raise IndexError(f"index {int(a.max())} is out of range for an int64 index")
    return a.astype(_I64, copy=False)


def _item(it: Any) -> Any:
    """Classify one index entry: None, Ellipsis, slice, int, bool, _Adv or _Mask."""
    if it is None or it is Ellipsis or isinstance(it, slice):
        return it
    if isinstance(it, (bool, np.bool_)):
        return bool(it)
    if isinstance(it, (int, np.integer)):
        return int(it)
    if is_tensor(it):
        name = getattr(it.dtype, "name", None) or str(it.dtype)
        if it.ndim == 0 and name in _INDEX_DTYPES:
            return int(it.item())
        if it.ndim == 0 and name == "bool":
            return bool(it.item())
        if name in _MASK_DTYPES:
            return _Mask(np.asarray(it).astype(bool))
        if name == "int64":
            return _Adv(it, None)
        if name == "int32":
            return _Adv(None, np.asarray(it).astype(_I64))
        raise IndexError(_BAD_TENSOR)
    if isinstance(it, (list, tuple, np.ndarray)):
        try:
            a = np.asarray(it)
        except (ValueError, OverflowError) as e:  # ragged lists
            raise IndexError(f"invalid index {it!r}: {e}") from None
        if a.dtype == np.bool_ or (isinstance(it, np.ndarray) and a.dtype == np.uint8):
            return bool(a) if a.ndim == 0 else _Mask(a)
        if a.size == 0 and a.dtype.kind == "f":  # [] is an empty integer index
            a = a.astype(_I64)
        if a.dtype.kind == "O":
            raise IndexError(f"index {it!r} is not a list of int64 integers")
        if a.dtype.kind not in "iu":
            raise IndexError(_BAD_TENSOR + f" (got an index of {a.dtype})")
        return int(a) if a.ndim == 0 else _Adv(None, _int_array(a))
    if hasattr(it, "__index__"):
        return operator.index(it)
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                     f"Variables are valid indices (got {type(it).__name__})")


def _items(index: Any, ndim: int) -> List[Any]:
    """The classified entries with Ellipsis expanded to full slices."""
    items = [_item(i) for i in _as_tuple(index)]
    consumed = n_ell = n_bool = 0
    for i in items:  # one pass: this runs on every x[i]
        if i is Ellipsis:
            n_ell += 1
        elif isinstance(i, bool):
            n_bool += 1
        elif i is not None:
            consumed += i.array.ndim if isinstance(i, _Mask) else 1
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if not n_ell and not n_bool:
        return items
    out: List[Any] = []
    for i in items:
        if i is Ellipsis:
            out.extend([slice(None)] * (ndim - consumed))
        elif isinstance(i, bool):
            # torch: a new dim of size 1 indexed by [0] (True) or [] (False), an advanced
            # index like any other (x[True, [0, 1]] broadcasts it with [0, 1])
            out.append(_Adv(None, np.zeros(int(i), dtype=_I64), fresh=True))
        else:
            out.append(i)
    return out


class _TensorSteps:
    """The basic steps on a tensor (ops of its engine: views)."""

    def __init__(self, B: Any):
        self.B = B

    def unsqueeze(self, t: Any, d: int) -> Any:
        return self.B.ops.unsqueeze(t, d)

    def select(self, t: Any, d: int, i: int) -> Any:
        return self.B.ops.select(t, d, i)

    def slice(self, t: Any, d: int, start: Any, stop: Any, step: int) -> Any:
        return self.B.ops.slice(t, d, start, stop, step)


class _NumpySteps:
    """The same steps on a numpy view of the storage (writes without autograd)."""

    @staticmethod
    def unsqueeze(t: np.ndarray, d: int) -> np.ndarray:
        return np.expand_dims(t, d)

    @staticmethod
    def select(t: np.ndarray, d: int, i: int) -> np.ndarray:
        return t[(slice(None),) * d + (i, Ellipsis)]  # a 0-d view, never a numpy scalar

    @staticmethod
    def slice(t: np.ndarray, d: int, start: Any, stop: Any, step: int) -> np.ndarray:
        return t[(slice(None),) * d + (slice(start, stop, step),)]


def _walk(x: Any, items: List[Any], steps: Any) -> Tuple[Any, List[int], List[Any]]:
    """Apply the basic entries in order; return the view and the advanced (dim, index) pairs
    on it (masks already replaced by their nonzero positions)."""
    out, dim = x, 0
    dims: List[int] = []
    idx: List[Any] = []
    for it in items:
        if it is None:
            out = steps.unsqueeze(out, dim)
            dim += 1
        elif isinstance(it, int):
            size = out.shape[dim]
            if not -size <= it < size:
                raise IndexError(f"index {it} is out of bounds for dimension {dim} with size "
                                 f"{size}")
            out = steps.select(out, dim, it)
        elif isinstance(it, slice):
            step = 1 if it.step is None else operator.index(it.step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if it.start is not None or it.stop is not None or step != 1:
                start = None if it.start is None else operator.index(it.start)
                stop = None if it.stop is None else operator.index(it.stop)
                out = steps.slice(out, dim, start, stop, step)
            dim += 1
        elif isinstance(it, _Adv):
            if it.fresh:
                out = steps.unsqueeze(out, dim)
            dims.append(dim)
            idx.append(it)
            dim += 1
        else:  # mask
            a = it.array
            shape = tuple(out.shape)
            if shape[dim:dim + a.ndim] != a.shape:  # torch's words
                raise IndexError(f"The shape of the mask {list(a.shape)} at index {dim} does "
                                 f"not match the shape of the indexed tensor {list(shape)} at "
                                 f"index {dim}")
            for k, nz in enumerate(np.nonzero(a)):
                dims.append(dim + k)
                idx.append(_Adv(None, nz.astype(_I64)))
            dim += a.ndim
    return out, dims, idx


def _index_tensors(B: Any, idx: List[_Adv]) -> List[Any]:
    return [i.given if i.given is not None else B.from_numpy(np.asarray(i.array, order="C"))
            for i in idx]


def _result_shape(shape: Tuple[int, ...], dims: List[int], idx: List[_Adv]) -> Tuple[int, ...]:
    """The shape ``index_tensor`` gives (torch's words when the indices do not broadcast)."""
    try:
        s = np.broadcast_shapes(*(i.shape for i in idx))
    except ValueError:
        shapes = ", ".join(str(list(i.shape)) for i in idx)
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together "
                         f"with shapes {shapes}") from None
    rest = [d for d in range(len(shape)) if d not in dims]
    if dims[-1] - dims[0] == len(dims) - 1:
        return (tuple(shape[d] for d in rest if d < dims[0]) + tuple(s)
                + tuple(shape[d] for d in rest if d > dims[0]))
    return tuple(s) + tuple(shape[d] for d in rest)


def getitem(x: Any, index: Any) -> Any:
    """``x[index]`` (Tensor.__getitem__): a basic index gives a registered view."""
    out, is_view = _get(x, index)
    if is_view:
        registry_for(backend_of(x)).add(out, x, (lambda b: _get(b, index)[0], (), {}))
    return out


def _get(x: Any, index: Any) -> Tuple[Any, bool]:
    B = backend_of(x)
    out, dims, idx = _walk(x, _items(index, x.ndim), _TensorSteps(B))
    if idx:
        if len(idx) > 1:  # torch's broadcast error, before the kernel's
            _result_shape(tuple(out.shape), dims, idx)
        return B.ops.index_tensor(out, tuple(dims), _index_tensors(B, idx)), False
    if out is x and x.ndim:
        out = B.ops.slice(x, 0, None, None, 1)  # x[...] is a new view, not x itself
    return out, out is not x


def _fit_value(B: Any, v: Any, want: Tuple[int, ...]) -> Any:
    """``v`` broadcast to ``want`` as torch's setitem: leading size-1 dims of the value are
    dropped, then it expands (torch's words otherwise)."""
    vs = tuple(v.shape)
    _check_value_shape(vs, want)
    extra = len(vs) - len(want)
    if extra > 0:
        v = B.ops.reshape(v, vs[extra:])
    return v if tuple(v.shape) == want else fn.expand(v, want)


def _basic_index(items: List[Any]) -> Tuple[Any, ...]:
    """The basic part of ``items``: advanced entries replaced by full slices."""
    out: List[Any] = []
    for it in items:
        if isinstance(it, _Adv):
            out.append(None if it.fresh else slice(None))
        elif isinstance(it, _Mask):
            out.extend([slice(None)] * it.array.ndim)
        else:
            out.append(it)
    return tuple(out)


def setitem(x: Any, index: Any, value: Any, accumulate: bool = False) -> None:
    """``x[index] = value`` (Tensor.__setitem__); ``accumulate`` adds (``index_put_``)."""
    B = backend_of(x)
    ag = B.autograd
    recording = ag.is_grad_enabled() and (
        x.requires_grad or (is_tensor(value) and value.requires_grad))
    key = None if accumulate else _basic_key(index)
    if key is not None and _set_basic(B, x, key, value, recording):
        return
    items = _items(index, x.ndim)
    if not recording:
        _set_storage(x, items, value, accumulate)
        return
    if x.is_leaf and x.requires_grad:  # torch's words, before any view of x is made
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    basic = _basic_index(items)
    trivial = all(isinstance(i, slice) and i == slice(None) for i in basic)
    target = x if trivial else getitem(x, basic)
    on_target = items if trivial else _advanced_only(items)
    _, dims, idx = _walk(target, on_target, _TensorSteps(B))
    if idx:
        want = _result_shape(tuple(target.shape), dims, idx)
        tensors = _index_tensors(B, idx)

        def compute(tc: Any) -> Any:
            v = _fit_value(B, fn.cast(fn.as_tensor(value, tc), tc.dtype), want)
            return B.ops.index_put(tc, tuple(dims), tensors, v, accumulate)
    else:
        def compute(tc: Any) -> Any:
            v = _fit_value(B, fn.cast(fn.as_tensor(value, tc), tc.dtype), tuple(tc.shape))
            return tc + v if accumulate else v

    run_inplace(target, compute, (value,), None)  # index_put saves only the indices


def _basic_key(index: Any) -> Optional[tuple]:
    """``index`` as a numpy key when it is basic (ints, slices of positive step, None,
    Ellipsis), where numpy's reading is torch's; None otherwise."""
    entries = index if isinstance(index, tuple) else (index,)
    for it in entries:
        t = type(it)
        if t is int or it is None or it is Ellipsis:
            continue
        if t is slice and (it.step is None or (type(it.step) is int and it.step > 0)):
            continue
        return None
    return entries


def _set_basic(B: Any, x: Any, key: tuple, value: Any, recording: bool) -> bool:
    """The fast ``x[basic] = value``; False when numpy refuses (the general path then raises
    torch's words). Without autograd one numpy write; with it, out of place over the whole of
    ``x`` (a where() on the written positions; Note [In-place on views] for views of ``x``)."""
    if recording and x.is_leaf and x.requires_grad:
        return False  # the general path raises torch's leaf message
    shape = tuple(x.shape)
    if not recording:
        arr = np.asarray(x.detach() if x.requires_grad else x)
        src = np.asarray(value.detach() if is_tensor(value) and value.requires_grad else value)
        try:
            arr[key] = src
        except (IndexError, ValueError, TypeError):
            return False
        x._bump_version()
        return True
    n = int(np.prod(shape, dtype=np.int64))
    try:
        positions = np.arange(n, dtype=_I64).reshape(shape)[key]
    except (IndexError, ValueError, TypeError):
        return False
    mask = np.zeros(n, dtype=bool)
    mask[positions.reshape(-1)] = True
    flat_positions = B.from_numpy(np.asarray(positions.reshape(-1), order="C"))

    def compute(xc: Any) -> Any:
        v = _fit_value(B, fn.cast(fn.as_tensor(value, xc), xc.dtype), positions.shape)
        v = fn.reshape(v, (-1,))
        flat = B.ops.index_add(B.from_numpy(np.zeros(n, xc.dtype)), 0, flat_positions, v)
        return fn.where(B.from_numpy(mask.reshape(shape)), fn.reshape(flat, shape), xc)

    run_inplace(x, compute, (value,), None)  # where() saves only the mask: no copy of x
    return True


def _advanced_only(items: List[Any]) -> List[Any]:
    """``items`` as seen from the basic view: the basic entries consumed (ints gone, slices and
    None now full dims), the advanced ones kept in place."""
    out: List[Any] = []
    for it in items:
        if isinstance(it, _Adv) and it.fresh:
            out.append(_Adv(None, it.array))  # its new dim is in the basic view already
        elif isinstance(it, (_Adv, _Mask)):
            out.append(it)
        elif it is None or isinstance(it, slice):
            out.append(slice(None))
    return out


def _set_storage(x: Any, items: List[Any], value: Any, accumulate: bool) -> None:
    """The write without autograd: numpy on the storage, with torch's checks and words."""
    arr = np.asarray(x.detach() if x.requires_grad else x)
    view, dims, idx = _walk(arr, items, _NumpySteps())
    src = np.asarray(value.detach() if is_tensor(value) and value.requires_grad else value)
    if idx:
        want = _result_shape(view.shape, dims, idx)
        key: List[Any] = [slice(None)] * view.ndim
        for j, (d, i) in enumerate(zip(dims, idx)):
            a = i.array if i.array is not None else np.asarray(i.given)
            size = view.shape[d]
            # an expanded index (stride 0) is checked once per distinct element
            core = a[tuple(slice(0, 1) if st == 0 else slice(None) for st in a.strides)]
            bad = (core < -size) | (core >= size)
            if np.any(bad):
                raise IndexError(f"index {int(core[bad].flat[0])} is out of bounds for "
                                 f"dimension {j} with size {size}")
            key[d] = a
    else:
        want = view.shape
    _check_value_shape(src.shape, want)
    src = src.reshape(src.shape[max(src.ndim - len(want), 0):])
    if idx:
        if accumulate:
            np.add.at(view, tuple(key), np.broadcast_to(src, want).astype(view.dtype))
        else:
            view[tuple(key)] = src
    elif accumulate:
        view += src
    else:
        view[...] = src
    x._bump_version()


def _check_value_shape(vs: Tuple[int, ...], want: Tuple[int, ...]) -> None:
    """A value of shape ``vs`` broadcasts to ``want`` once its leading size-1 dims are dropped
    (torch's words otherwise)."""
    extra = len(vs) - len(want)
    core = vs[extra:] if extra > 0 else vs
    if (extra > 0 and any(s != 1 for s in vs[:extra])) or not all(
            a == 1 or a == b for a, b in zip(core[::-1], want[::-1])):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(vs)} cannot be "
                           f"broadcast to indexing result of shape {list(want)}")


def _put_index(indices: Sequence[Any]) -> Tuple[Any, ...]:
    """``index_put``'s indices (a tuple of tensors, None for a whole dim) as an index."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put(): argument 'indices' must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    out: List[Any] = []
    for i in indices:
        if i is None:
            out.append(slice(None))
        elif is_tensor(i):
            out.append(i if i.ndim else fn.reshape(i, (1,)))  # a 0-d index is an index here
        else:
            raise TypeError("index_put(): argument 'indices' must be tuple of Tensors, not "
                            f"a sequence containing {type(i).__name__}")
    return tuple(out)


def index_put(x: Any, indices: Sequence[Any], values: Any, accumulate: bool = False) -> Any:
    """``torch.index_put``: ``x`` with ``values`` written at ``x[indices]`` (added with
    ``accumulate``), out of place; gradients to ``x`` and ``values``."""
    dtype_checks.check_index_put(x, values)
    B = backend_of(x)
    items = _items(_put_index(indices), x.ndim)
    _, dims, idx = _walk(x, items, _TensorSteps(B))
    if not idx:  # every entry None: the whole of x
        v = _fit_value(B, values, tuple(x.shape))
        return x + v if accumulate else B.ops.clone(fn.expand(v, tuple(x.shape)))
    want = _result_shape(tuple(x.shape), dims, idx)
    return B.ops.index_put(x, tuple(dims), _index_tensors(B, idx),
                           _fit_value(B, values, want), accumulate)

