"""Functions that find and count: ``nonzero``, ``argwhere``, ``count_nonzero``, ``unique``,
``unique_consecutive``, ``bincount``, ``histc``, ``searchsorted``, ``bucketize``, ``isin``.

Input: tensors of either engine. Output: new tensors of that engine, computed in numpy on the
values. None of them is differentiable in torch (their results are indices, counts, or values
picked without a derivative), so none records a graph. Signatures, result dtypes and errors
are torch's.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from transgrad._backend import backend_of, find_backend, is_tensor

__all__ = ["nonzero", "argwhere", "count_nonzero", "unique", "unique_consecutive", "bincount",
           "histc", "searchsorted", "bucketize", "isin"]


def _values(t: Any) -> np.ndarray:
    return np.asarray(t.detach())


def _new(like: Any, a: np.ndarray) -> Any:
    return backend_of(like).from_numpy(np.ascontiguousarray(a))


def nonzero(input: Any, *, as_tuple: bool = False) -> Any:
    """Indices of the nonzero entries: an (n, ndim) int64 tensor, or with ``as_tuple`` one 1-d
    tensor per dim (a 0-d input counts as 1-d there, as torch's)."""
    a = _values(input)
    if as_tuple:
        return tuple(_new(input, i.astype(np.int64)) for i in np.nonzero(np.atleast_1d(a)))
    return _new(input, np.argwhere(a).astype(np.int64).reshape(-1, a.ndim))


def argwhere(input: Any) -> Any:
    """``nonzero(input)``: indices of the nonzero entries, one row each."""
    return nonzero(input)


def count_nonzero(input: Any, dim: Any = None) -> Any:
    """The number of nonzero entries (over ``dim``, an int or a tuple), as int64."""
    a = _values(input)
    axis = None if dim is None else tuple(np.atleast_1d(dim).tolist())
    return _new(input, np.asarray(np.count_nonzero(a, axis=axis), dtype=np.int64))


def _unique_rows(a: np.ndarray, dim: int, consecutive: bool) -> tuple:
    moved = np.moveaxis(a, dim, 0)
    flat = moved.reshape(moved.shape[0], -1)
    if consecutive:
        keep = np.ones(flat.shape[0], bool)
        keep[1:] = np.any(flat[1:] != flat[:-1], axis=1)
        inverse = np.cumsum(keep) - 1
        counts = np.diff(np.append(np.flatnonzero(keep), flat.shape[0]))
        return np.moveaxis(moved[keep], 0, dim), inverse, counts
    uniq, inverse, counts = np.unique(flat, axis=0, return_inverse=True, return_counts=True)
    return (np.moveaxis(uniq.reshape((-1,) + moved.shape[1:]), 0, dim), inverse.reshape(-1),
            counts)


def _unique(input: Any, return_inverse: bool, return_counts: bool, dim: Optional[int],
            consecutive: bool) -> Any:
    a = _values(input)
    if dim is not None:
        if not -max(a.ndim, 1) <= dim < max(a.ndim, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(a.ndim, 1)}, {max(a.ndim, 1) - 1}], but got {dim})")
        vals, inverse, counts = _unique_rows(a, dim % max(a.ndim, 1), consecutive)
    elif consecutive:
        flat = a.reshape(-1)
        vals, inverse, counts = _unique_rows(flat, 0, True)
        inverse = inverse.reshape(a.shape)
    else:
        vals, inverse, counts = np.unique(a.reshape(-1), return_inverse=True, return_counts=True)
        inverse = inverse.reshape(a.shape)
    out = [_new(input, vals.astype(a.dtype))]
    if return_inverse:
        out.append(_new(input, np.asarray(inverse, np.int64)))
    if return_counts:
        out.append(_new(input, np.asarray(counts, np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def unique(input: Any, sorted: bool = True, return_inverse: bool = False,
           return_counts: bool = False, dim: Optional[int] = None) -> Any:
    """The distinct entries (or slices along ``dim``), sorted; with the inverse indices that
    rebuild ``input`` and the counts when asked."""
    return _unique(input, return_inverse, return_counts, dim, consecutive=False)


def unique_consecutive(input: Any, return_inverse: bool = False, return_counts: bool = False,
                       dim: Optional[int] = None) -> Any:
    """``input`` with each run of equal consecutive entries (or slices) kept once."""
    return _unique(input, return_inverse, return_counts, dim, consecutive=True)


def bincount(input: Any, weights: Any = None, minlength: int = 0) -> Any:
    """Counts of each value of a 1-d non-negative integer tensor (summed ``weights`` instead
    of ones when given; float64 for float weights of float64, else float32 as torch's)."""
    a = _values(input)
    if a.ndim != 1 or a.dtype.kind not in "iu":
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if a.size and a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return _new(input, np.bincount(a, minlength=minlength).astype(np.int64))
    w = _values(weights)
    if w.shape != a.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    out_dtype = np.float64 if w.dtype == np.float64 else np.float32 if w.dtype.kind == "f" \
        else np.float64
    return _new(input, np.bincount(a, weights=w.astype(np.float64),
                                   minlength=minlength).astype(out_dtype))


def histc(input: Any, bins: int = 100, min: float = 0, max: float = 0) -> Any:  # noqa: A002
    """A histogram of ``bins`` equal bins over [min, max] (the data's range when both are 0);
    values outside are ignored; the result has ``input``'s dtype."""
    a = _values(input)
    if a.dtype.kind != "f":
        raise RuntimeError(f"\"histogram_cpu\" not implemented for '{_torch_name(a.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"torch.histc: min must be less than or equal to max, but got "
                           f"min={min} and max={max}")
    counts, _ = np.histogram(a.reshape(-1), bins=bins, range=(lo, hi))
    return _new(input, counts.astype(a.dtype))


def searchsorted(sorted_sequence: Any, values: Any, *, out_int32: bool = False,
                 right: bool = False, side: Optional[str] = None, sorter: Any = None) -> Any:
    """For each of ``values``, the index in ``sorted_sequence`` (sorted along its last dim,
    row by row when it has several) where it would be inserted to keep the order."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    B = find_backend((sorted_sequence, values))
    seq = _values(sorted_sequence)
    if sorter is not None:
        seq = np.take_along_axis(seq, _values(sorter), axis=-1)
    vals = _values(values) if is_tensor(values) else np.asarray(values)
    which: Any = "right" if right else "left"
    if seq.ndim <= 1:
        out = np.searchsorted(seq, vals, side=which)
    else:
        if seq.shape[:-1] != vals.shape[:-1]:
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                "dimensions of boundaries tensor and input value tensor must match, but we got "
                f"boundaries tensor {list(seq.shape)} and input value tensor {list(vals.shape)}")
        rows_s = seq.reshape(-1, seq.shape[-1])
        rows_v = vals.reshape(-1, vals.shape[-1])
        out = np.stack([np.searchsorted(s, v, side=which) for s, v in zip(rows_s, rows_v)])
        out = out.reshape(vals.shape)
    assert B is not None
    return B.from_numpy(np.ascontiguousarray(np.asarray(out).astype(
        np.int32 if out_int32 else np.int64)))


def bucketize(input: Any, boundaries: Any, *, out_int32: bool = False,
              right: bool = False) -> Any:
    """For each value, the index of its bucket among the 1-d sorted ``boundaries``."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False,
         invert: bool = False) -> Any:
    """Whether each entry of ``elements`` is among ``test_elements`` (either may be a
    number); a bool tensor of ``elements``' shape."""
    B = find_backend((elements, test_elements))
    if B is None:
        raise TypeError("isin(): expected a Tensor among elements and test_elements")
    a = _values(elements) if is_tensor(elements) else np.asarray(elements)
    b = _values(test_elements) if is_tensor(test_elements) else np.asarray(test_elements)
    return B.from_numpy(np.ascontiguousarray(np.isin(a, b, invert=invert)))


def _torch_name(d: np.dtype) -> str:
    return {"int64": "Long", "bool": "Bool", "float32": "Float", "float64": "Double",
            "int32": "Int"}.get(str(d), str(d))
