"""Functions that arrange tensors: ``atleast_*d``, the ``*stack`` family, ``meshgrid``,
``cartesian_prod``, ``combinations``, ``kron``, ``tensordot``, ``diff``, ``block_diag``.

Input: tensors of either engine. Output: tensors of the same engine. Each is a composite of
differentiable ops (views, ``cat``, ``reshape``, ``matmul``, ``index_select``...), so gradients
and double backward come from those ops' formulas; nothing here is a new derivative.
Signatures, dtype rules and errors are torch's.
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any, Optional, Sequence

import numpy as np

from transgrad._api import functions as fn
from transgrad._backend import backend_of, find_backend, is_tensor

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack", "dstack",
           "column_stack", "meshgrid", "cartesian_prod", "combinations", "kron", "tensordot",
           "diff", "block_diag"]


def _tensors(args: tuple) -> list:
    """``f(a, b)`` and ``f([a, b])`` alike, as torch's ``atleast_*d`` and ``meshgrid``."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return list(args[0])
    return list(args)


def _atleast(args: tuple, nd: int) -> Any:
    single = len(args) == 1 and is_tensor(args[0])
    out = []
    for t in _tensors(args):
        if t.ndim == 0:
            t = fn.reshape(t, (1,) * nd)
        elif t.ndim == 1 and nd >= 2:
            t = fn.unsqueeze(t, 0)
            if nd == 3:
                t = fn.unsqueeze(t, -1)
        elif t.ndim == 2 and nd == 3:
            t = fn.unsqueeze(t, -1)
        out.append(t)
    return out[0] if single else tuple(out)


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least 1 dimension (0-d becomes shape (1,))."""
    return _atleast(tensors, 1)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least 2 dimensions (a 1-d tensor becomes a row)."""
    return _atleast(tensors, 2)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least 3 dimensions ((n,) -> (1, n, 1), (m, n) -> (m, n, 1))."""
    return _atleast(tensors, 3)


def _seq(tensors: Sequence[Any], name: str) -> list:
    if is_tensor(tensors) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    if len(tensors) == 0:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return list(tensors)


def hstack(tensors: Sequence[Any]) -> Any:
    """Joined column-wise: along dim 0 for 1-d tensors, else dim 1."""
    ts = list(atleast_1d(*_seq(tensors, "hstack")))
    return fn.cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Any]) -> Any:
    """Joined row-wise (along dim 0) after making each at least 2-d."""
    return fn.cat(list(atleast_2d(*_seq(tensors, "vstack"))), 0)


def row_stack(tensors: Sequence[Any]) -> Any:
    """Alias of ``vstack``."""
    return vstack(tensors)


def dstack(tensors: Sequence[Any]) -> Any:
    """Joined depth-wise (along dim 2) after making each at least 3-d."""
    return fn.cat(list(atleast_3d(*_seq(tensors, "dstack"))), 2)


def column_stack(tensors: Sequence[Any]) -> Any:
    """Joined as columns: 0-d and 1-d tensors become (n, 1) columns, then along dim 1."""
    cols = [fn.reshape(t, (t.numel, 1)) if t.ndim <= 1 else t
            for t in _seq(tensors, "column_stack")]
    return fn.cat(cols, 1)


def meshgrid(*tensors: Any, indexing: Optional[str] = None) -> tuple:
    """Coordinate grids of 1-d tensors (views, as torch's): ``indexing="ij"`` (matrix) or
    ``"xy"`` (Cartesian, the first two dims swapped); left out, "ij" with torch's warning."""
    ts = _tensors(tensors)
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in ts:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t.ndim}D")
    ts = [fn.reshape(t, (-1,)) for t in ts]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.shape[0] for t in ts)
    grids = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = shape[i]
        grids.append(fn.expand(fn.reshape(t, tuple(view)), shape))
    if swap:  # numpy's Cartesian order: the grids of (y, x, ...) with the first two swapped back
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors: Any) -> Any:
    """All tuples of one entry from each 1-d tensor, as rows (a 1-d input is returned as is)."""
    ts = _tensors(tensors)
    for t in ts:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts, indexing="ij")
    return fn.stack([fn.reshape(g, (-1,)) for g in grids], 1)


def combinations(input: Any, r: int = 2, with_replacement: bool = False) -> Any:
    """The length-``r`` combinations of a 1-d tensor's entries, as rows (itertools' order)."""
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    n = input.shape[0]
    pick = (itertools.combinations_with_replacement if with_replacement
            else itertools.combinations)
    rows = list(pick(range(n), r))
    B = backend_of(input)
    if r == 0 or not rows:
        return fn.reshape(fn.narrow(input, 0, 0, 0), (0,) if r == 0 else (0, r))
    index = B.from_numpy(np.asarray(rows, dtype=np.int64).reshape(-1))
    return fn.reshape(fn.index_select(input, 0, index), (len(rows), r))


def kron(input: Any, other: Any) -> Any:
    """The Kronecker product: every entry of ``input`` times the whole of ``other``."""
    nd = max(input.ndim, other.ndim)
    a = fn.reshape(input, (1,) * (nd - input.ndim) + tuple(input.shape))
    b = fn.reshape(other, (1,) * (nd - other.ndim) + tuple(other.shape))
    # interleave: a's dims as (s, 1), b's as (1, t), then merge each pair
    ia = tuple(d for s in a.shape for d in (s, 1))
    ib = tuple(d for t in b.shape for d in (1, t))
    prod = fn.mul(fn.reshape(a, ia), fn.reshape(b, ib))
    return fn.reshape(prod, tuple(s * t for s, t in zip(a.shape, b.shape)))


def tensordot(a: Any, b: Any, dims: Any = 2) -> Any:
    """The sum of products over the last ``dims`` dims of ``a`` and the first of ``b`` (an int),
    or over the dims listed in ``dims = (dims_a, dims_b)``."""
    if isinstance(dims, (int, np.integer)) and not isinstance(dims, bool):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    elif is_tensor(dims):
        return tensordot(a, b, [list(v) for v in np.asarray(dims.detach()).tolist()])
    else:
        da, db = ([dims[0]] if isinstance(dims[0], int) else list(dims[0]),
                  [dims[1]] if isinstance(dims[1], int) else list(dims[1]))
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    da = [d % a.ndim for d in da] if a.ndim else da
    db = [d % b.ndim for d in db] if b.ndim else db
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[x]} in dim {x} and second has size {b.shape[y]} in "
                               f"dim {y}")
    free_a = [d for d in range(a.ndim) if d not in da]
    free_b = [d for d in range(b.ndim) if d not in db]
    k = math.prod(a.shape[d] for d in da)
    am = fn.reshape(fn.permute(a, free_a + da), (-1, k))
    bm = fn.reshape(fn.permute(b, db + free_b), (k, -1))
    out_shape = tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b)
    return fn.reshape(fn.matmul(am, bm), out_shape)


def diff(input: Any, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """The ``n``-th forward difference along ``dim`` (``prepend``/``append`` joined first);
    booleans differ by ``!=``, as torch's."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    parts = [t for t in (prepend, input, append) if t is not None]
    x = fn.cat([fn.as_tensor(t, input) if is_tensor(t) else fn.as_tensor(t, input)
                for t in parts], dim) if len(parts) > 1 else input
    for _ in range(n):
        size = x.shape[dim]
        if size == 0:
            break
        hi, lo = fn.narrow(x, dim, 1, size - 1), fn.narrow(x, dim, 0, size - 1)
        x = fn.ne(hi, lo) if x.dtype.name == "bool" else fn.sub(hi, lo)
    return x


def block_diag(*tensors: Any) -> Any:
    """The tensors (0-, 1- or 2-d) as blocks on the diagonal of a matrix, zeros elsewhere."""
    if not tensors:
        raise RuntimeError("block_diag expects at least one tensor")
    B = find_backend(tensors)
    if B is None:
        raise TypeError("block_diag(): expected Tensors")
    mats: list = []
    for t in tensors:
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {len(mats)} has {t.ndim} dimensions")
        mats.append(fn.reshape(t, (1, 1)) if t.ndim == 0 else
                    fn.unsqueeze(t, 0) if t.ndim == 1 else t)
    rows = sum(m.shape[0] for m in mats)
    cols = sum(m.shape[1] for m in mats)
    dtype = _joint_dtype([m.dtype.dtype for m in mats])
    out_rows, c0 = [], 0
    for m in mats:
        r, c = m.shape
        left = B.from_numpy(np.zeros((r, c0), dtype))
        right = B.from_numpy(np.zeros((r, cols - c0 - c), dtype))
        out_rows.append(fn.cat([left, fn.cast(m, dtype), right], 1))
        c0 += c
    return fn.cat(out_rows, 0) if rows else B.from_numpy(np.zeros((0, cols), dtype))


def _joint_dtype(dtypes: list) -> np.dtype:
    """torch's promotion among tensors of one category order (bool < integer < floating): the
    widest of the highest category present (int64 with float32 gives float32, not numpy's
    float64)."""
    rank = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
    top = max(rank[d.kind] for d in dtypes)
    return max((d for d in dtypes if rank[d.kind] == top), key=lambda d: d.itemsize)
