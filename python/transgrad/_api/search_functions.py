"""Functions that find and count: ``argwhere``, ``bincount``, ``searchsorted``, ``bucketize``,
``isin`` (``nonzero``, ``unique``, ``histc`` are in counting.py, ``count_nonzero`` in
composites.py).

Input: tensors of either engine. Output: new tensors of that engine, computed in numpy on the
values. None of them is differentiable in torch (their results are indices, counts, or values
picked without a derivative), so none records a graph. Signatures, result dtypes and errors
are torch's.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from transgrad._api import out_args as _out_args
from transgrad._api.counting import nonzero
from transgrad._backend import backend_of, find_backend, is_tensor

__all__ = ["argwhere", "bincount", "searchsorted", "bucketize", "isin"]


def _values(t: Any) -> np.ndarray:
    return np.asarray(t.detach())


def _new(like: Any, a: np.ndarray) -> Any:
    return backend_of(like).from_numpy(np.asarray(a, order="C"))


def argwhere(input: Any) -> Any:
    """``nonzero(input)``: indices of the nonzero entries, one row each."""
    return nonzero(input)


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


# Note [searchsorted and NaN]
# torch's searchsorted is a binary search whose step goes left when `seq[mid] >= v` (`>` for
# right=True) and right otherwise; a NaN compares false both ways, so a NaN value lands past
# the end (searchsorted([1, 2, nan], nan) is 3) and a NaN in the sequence sends the search to
# its right. numpy's searchsorted orders NaN last instead (its NaN value lands before a NaN of
# the sequence: 2 there), so the search is written out: the same steps, every value at once.
def _binary_search(seq: np.ndarray, vals: np.ndarray, right: bool) -> np.ndarray:
    """torch's insertion points of ``vals`` in the 1-d ``seq`` (Note [searchsorted and NaN])."""
    v = vals.reshape(-1)
    n = seq.shape[-1]
    lo = np.zeros(v.shape, np.int64)
    hi = np.full(v.shape, n, np.int64)
    while True:
        active = lo < hi
        if not active.any():
            break
        mid = lo + ((hi - lo) >> 1)
        at = seq[np.minimum(mid, max(n - 1, 0))] if n else v
        with np.errstate(invalid="ignore"):
            left = (at > v) if right else (at >= v)
        hi = np.where(active & left, mid, hi)
        lo = np.where(active & ~left, mid + 1, lo)
    return lo.reshape(vals.shape)


def searchsorted(sorted_sequence: Any, values: Any, *, out_int32: bool = False,
                 right: bool = False, side: Optional[str] = None, sorter: Any = None,
                 out: Any = None) -> Any:
    """For each of ``values``, the index in ``sorted_sequence`` (sorted along its last dim,
    row by row when it has several) where it would be inserted to keep the order."""
    if out is not None:
        return _out_args.write_out(
            "searchsorted", searchsorted,
            (sorted_sequence, values),
            {"out_int32": out_int32, "right": right, "side": side, "sorter": sorter}, out)
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
    if seq.ndim <= 1:
        out = _binary_search(seq, vals, right)
    else:
        if seq.shape[:-1] != vals.shape[:-1]:
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                "dimensions of boundaries tensor and input value tensor must match, but we got "
                f"boundaries tensor {list(seq.shape)} and input value tensor {list(vals.shape)}")
        rows_s = seq.reshape(-1, seq.shape[-1])
        rows_v = vals.reshape(-1, vals.shape[-1])
        out = np.stack([_binary_search(s, v, right) for s, v in zip(rows_s, rows_v)])
        out = out.reshape(vals.shape)
    assert B is not None
    return B.from_numpy(np.asarray(np.asarray(out).astype(
        np.int32 if out_int32 else np.int64), order="C"))


def bucketize(input: Any, boundaries: Any, *, out_int32: bool = False,
              right: bool = False, out: Any = None) -> Any:
    """For each value, the index of its bucket among the 1-d sorted ``boundaries``."""
    if out is not None:
        return _out_args.write_out("bucketize", bucketize, (input, boundaries),
                                   {"out_int32": out_int32, "right": right}, out)
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False,
         invert: bool = False, out: Any = None) -> Any:
    """Whether each entry of ``elements`` is among ``test_elements`` (either may be a
    number); a bool tensor of ``elements``' shape."""
    if out is not None:
        return _out_args.write_out("isin", isin, (elements, test_elements),
                                   {"assume_unique": assume_unique, "invert": invert}, out)
    B = find_backend((elements, test_elements))
    if B is None:
        raise TypeError("isin(): expected a Tensor among elements and test_elements")
    a = _values(elements) if is_tensor(elements) else np.asarray(elements)
    b = _values(test_elements) if is_tensor(test_elements) else np.asarray(test_elements)
    return B.from_numpy(np.asarray(np.isin(a, b, invert=invert), order="C"))

