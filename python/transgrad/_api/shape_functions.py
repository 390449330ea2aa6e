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

from transgrad._api import dtype_checks
from transgrad._api import functions as fn
from transgrad._api import out_args as _out_args
from transgrad._backend import backend_of, find_backend, is_tensor

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack", "dstack",
           "column_stack", "meshgrid", "cartesian_prod", "combinations", "kron", "tensordot",
           "diff", "block_diag", "repeat_interleave", "tile", "ravel", "moveaxis", "swapdims",
           "tensor_split", "hsplit", "vsplit", "dsplit", "take_along_dim", "diag", "fliplr",
           "flipud", "inner", "broadcast_shapes", "cross", "positive"]


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


def hstack(tensors: Sequence[Any], *, out: Any = None) -> Any:
    """Joined column-wise: along dim 0 for 1-d tensors, else dim 1."""
    if out is not None:
        return _out_args.write_out("hstack", hstack, (tensors,), {}, out)
    ts = list(atleast_1d(*_seq(tensors, "hstack")))
    return fn.cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Any], *, out: Any = None) -> Any:
    """Joined row-wise (along dim 0) after making each at least 2-d."""
    if out is not None:
        return _out_args.write_out("vstack", vstack, (tensors,), {}, out)
    return fn.cat(list(atleast_2d(*_seq(tensors, "vstack"))), 0)


def row_stack(tensors: Sequence[Any], *, out: Any = None) -> Any:
    """Alias of ``vstack``."""
    if out is not None:
        return _out_args.write_out("row_stack", row_stack, (tensors,), {}, out)
    return vstack(tensors)


def dstack(tensors: Sequence[Any], *, out: Any = None) -> Any:
    """Joined depth-wise (along dim 2) after making each at least 3-d."""
    if out is not None:
        return _out_args.write_out("dstack", dstack, (tensors,), {}, out)
    return fn.cat(list(atleast_3d(*_seq(tensors, "dstack"))), 2)


def column_stack(tensors: Sequence[Any], *, out: Any = None) -> Any:
    """Joined as columns: 0-d and 1-d tensors become (n, 1) columns, then along dim 1."""
    if out is not None:
        return _out_args.write_out("column_stack", column_stack, (tensors,), {}, out)
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


def kron(input: Any, other: Any, *, out: Any = None) -> Any:
    """The Kronecker product: every entry of ``input`` times the whole of ``other``."""
    if out is not None:
        return _out_args.write_out("kron", kron, (input, other), {}, out)
    nd = max(input.ndim, other.ndim)
    a = fn.reshape(input, (1,) * (nd - input.ndim) + tuple(input.shape))
    b = fn.reshape(other, (1,) * (nd - other.ndim) + tuple(other.shape))
    # interleave: a's dims as (s, 1), b's as (1, t), then merge each pair
    ia = tuple(d for s in a.shape for d in (s, 1))
    ib = tuple(d for t in b.shape for d in (1, t))
    prod = fn.mul(fn.reshape(a, ia), fn.reshape(b, ib))
    return fn.reshape(prod, tuple(s * t for s, t in zip(a.shape, b.shape)))


def tensordot(a: Any, b: Any, dims: Any = 2, *, out: Any = None) -> Any:
    """The sum of products over the last ``dims`` dims of ``a`` and the first of ``b`` (an int),
    or over the dims listed in ``dims = (dims_a, dims_b)``."""
    if out is not None:
        return _out_args.write_out("tensordot", tensordot, (a, b, dims), {}, out)
    dtype_checks.check_same(a, b)
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


def diff(input: Any, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None, *,
         out: Any = None) -> Any:
    """The ``n``-th forward difference along ``dim`` (``prepend``/``append`` joined first);
    booleans differ by ``!=``, as torch's."""
    if out is not None:
        return _out_args.write_out("diff", diff, (input, n, dim, prepend, append), {}, out)
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if n == 0:  # torch's: the input itself, prepend and append ignored
        return input
    dim = fn.wrap_dim(dim, input.ndim)
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


# ---- repeating, splitting, taking: torch's everyday shape names ------------------------------


def repeat_interleave(input: Any, repeats: Any = None, dim: Optional[int] = None, *,
                      output_size: Optional[int] = None) -> Any:
    """Each entry of ``input`` along ``dim`` repeated ``repeats`` times (an int, or a 0-d or
    1-D tensor with one count per entry); ``dim=None`` works on the flattened input.
    ``repeat_interleave(counts)`` alone repeats each index ``i`` counts[i] times. An
    ``index_select`` with the repeated indices, so gradients sum back over the copies."""
    if repeats is None:  # torch.repeat_interleave(repeats): the indices 0..n-1 repeated
        counts = np.asarray(input.detach().numpy()).astype(np.int64)
        if counts.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if (counts < 0).any():
            raise RuntimeError("repeats can not be negative")
        idx = np.repeat(np.arange(counts.shape[0], dtype=np.int64), counts)
        return backend_of(input).from_numpy(idx)
    if dim is None:
        input, d = fn.reshape(input, (-1,)), 0
    else:
        d = fn.wrap_dim(dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if is_tensor(repeats):
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        counts = np.asarray(repeats.detach().numpy()).astype(np.int64).reshape(-1)
        if repeats.ndim == 1 and counts.shape[0] != n:
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {counts.shape[0]} and input.size({d}) = "
                               f"{n}")
    else:
        counts = np.asarray([int(repeats)], dtype=np.int64)
    if (counts < 0).any():
        raise RuntimeError("Repeats must be non-negative")
    idx = np.repeat(np.arange(n, dtype=np.int64), np.broadcast_to(counts, (n,)))
    if output_size is not None and idx.shape[0] != output_size:
        raise RuntimeError(f"repeat_interleave: output_size {output_size} does not match the "
                           f"total number of repeats {idx.shape[0]}")
    if input.ndim == 0:
        input = fn.reshape(input, (1,))
    return fn.index_select(input, d, backend_of(input).from_numpy(idx))


def tile(input: Any, *dims: Any) -> Any:
    """``input`` repeated ``dims`` times along its dims; fewer ``dims`` than dims are padded
    with ones at the front (``repeat`` requires as many)."""
    from transgrad._api.extra_functions import repeat

    reps = fn.shape_arg(dims)
    return repeat(input, *((1,) * (input.ndim - len(reps)) + tuple(reps)))


def ravel(input: Any) -> Any:
    """``input`` as a 1-D tensor (a view when its layout allows)."""
    return fn.reshape(input, (-1,))


def moveaxis(input: Any, source: int, destination: int) -> Any:
    """numpy's name of ``movedim``."""
    return fn.movedim(input, source, destination)


def swapdims(input: Any, dim0: int, dim1: int) -> Any:
    """numpy's name of ``transpose``."""
    return fn.transpose(input, dim0, dim1)


def _sections(n: int, indices_or_sections: Any) -> list:
    """The (start, stop) pairs of ``tensor_split`` over a dim of size ``n``."""
    spec = indices_or_sections
    if is_tensor(spec):
        if spec.ndim > 1 or "int" not in str(spec.dtype):
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                               "zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {spec.ndim} dims")
        values = np.asarray(spec.detach().numpy()).tolist()
        spec = values if spec.ndim == 1 else int(values)
    if isinstance(spec, (int, np.integer)):
        s = int(spec)
        if s <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {s}")
        sizes = [n // s + (1 if i < n % s else 0) for i in range(s)]
        bounds = list(itertools.accumulate([0, *sizes]))
        return list(zip(bounds[:-1], bounds[1:]))
    cuts = [0, *(int(i) for i in spec), n]
    return [(builtins_min(a, n), builtins_max(builtins_min(a, n), builtins_min(b, n)))
            for a, b in zip(cuts[:-1], cuts[1:])]


builtins_min, builtins_max = min, max


def tensor_split(input: Any, indices_or_sections: Any, dim: int = 0) -> tuple:
    """Views of ``input`` along ``dim``: ``sections`` nearly equal parts (the first ``n %
    sections`` one longer), or the pieces between the given indices (clamped to the size)."""
    d = fn.wrap_dim(dim, input.ndim)
    return tuple(fn.narrow(input, d, a, b - a)
                 for a, b in _sections(input.shape[d], indices_or_sections))


def _split_at(name: str, input: Any, spec: Any, dim: int, min_ndim: int) -> tuple:
    if input.ndim < min_ndim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_ndim} dimension, "
                           f"but got a tensor with {input.ndim} dimensions!")
    if isinstance(spec, (int, np.integer)) and (spec == 0 or input.shape[dim] % spec):
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                           f"size of the dimension {input.shape[dim]} is not divisible by the "
                           f"split_size {spec}!")
    return tensor_split(input, spec, dim)


def hsplit(input: Any, indices_or_sections: Any) -> tuple:
    """``tensor_split`` along dim 1 (dim 0 of a 1-D tensor); an int must divide the size."""
    return _split_at("hsplit", input, indices_or_sections, 1 if input.ndim >= 2 else 0, 1)


def vsplit(input: Any, indices_or_sections: Any) -> tuple:
    """``tensor_split`` along dim 0 of a tensor of 2 or more dims."""
    return _split_at("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Any, indices_or_sections: Any) -> tuple:
    """``tensor_split`` along dim 2 of a tensor of 3 or more dims."""
    return _split_at("dsplit", input, indices_or_sections, 2, 3)


def take_along_dim(input: Any, indices: Any, dim: Optional[int] = None, *, out: Any = None) -> Any:
    """``gather`` with the dims other than ``dim`` broadcast between input and indices (as
    numpy's take_along_axis); without ``dim``, over the flattened input."""
    if out is not None:
        return _out_args.write_out("take_along_dim", take_along_dim, (input, indices, dim), {}, out)
    if dim is None:
        return fn.gather(fn.reshape(input, (-1,)), 0, fn.reshape(indices, (-1,)))
    d = fn.wrap_dim(dim, input.ndim)
    if input.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.ndim} dimensions for input, "
                           f"and {indices.ndim} dimensions for indices")
    shape = list(np.broadcast_shapes(*(tuple(s for i, s in enumerate(t.shape) if i != d)
                                       for t in (input, indices))))
    in_shape = shape[:d] + [input.shape[d]] + shape[d:]
    ix_shape = shape[:d] + [indices.shape[d]] + shape[d:]
    return fn.gather(fn.expand(input, *in_shape), d, fn.expand(indices, *ix_shape))


def diag(input: Any, diagonal: int = 0, *, out: Any = None) -> Any:
    """A 1-D input: the square matrix with it on diagonal ``diagonal``; a 2-D input: that
    diagonal of it (a copy)."""
    if out is not None:
        return _out_args.write_out("diag", diag, (input, diagonal), {}, out)
    from transgrad._api.scatter import diag_embed

    if input.ndim == 1:
        return diag_embed(input, diagonal)
    if input.ndim == 2:
        return fn.clone(fn.diagonal(input, diagonal))
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def fliplr(input: Any) -> Any:
    """``input`` reversed along dim 1."""
    from transgrad._api.extra_functions import flip

    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input: Any) -> Any:
    """``input`` reversed along dim 0."""
    from transgrad._api.extra_functions import flip

    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def inner(input: Any, other: Any, *, out: Any = None) -> Any:
    """The sum over the last dims of ``input`` and ``other`` of their products (every pair of
    the other dims); a 0-d operand multiplies."""
    if out is not None:
        return _out_args.write_out("inner", inner, (input, other), {}, out)
    if input.ndim == 0 or other.ndim == 0:
        return fn.mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


def broadcast_shapes(*shapes: Any) -> Any:
    """The shape the given shapes broadcast to (ints count as 1-D shapes), as a ``Size``."""
    from transgrad._api.legacy import Size

    dims = [(int(s),) if isinstance(s, (int, np.integer)) else tuple(int(v) for v in s)
            for s in shapes]
    out = [1] * builtins_max((len(d) for d in dims), default=0)
    for k, shape in enumerate(dims):  # right to left, as torch (its message shows `out` so far)
        for i in range(-1, -1 - len(shape), -1):
            if shape[i] == 1 or shape[i] == out[i]:
                continue
            if out[i] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[i]} "
                                   f"at {i}! Mismatching argument at index {k} had {shape}; but "
                                   f"expected shape should be broadcastable to {out}")
            out[i] = shape[i]
    return Size(out)


def cross(input: Any, other: Any, dim: Optional[int] = None, *, out: Any = None) -> Any:
    """torch.cross: ``linalg.cross`` along ``dim``; without ``dim`` (deprecated in torch, with
    its warning) along the first dim of size 3 of the broadcast inputs."""
    if out is not None:
        return _out_args.write_out("cross", cross, (input, other, dim), {}, out)
    from transgrad._api import composites

    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross."
                      "\nThe default value of dim will change to agree with that of "
                      "linalg.cross in a future release.", UserWarning, stacklevel=2)
        shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return composites.cross(input, other, dim=dim)


def positive(input: Any) -> Any:
    """``input`` itself (``+input``); a bool tensor is refused, as torch."""
    if input.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input
