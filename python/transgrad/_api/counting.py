"""Functions that count, locate and deduplicate values: ``unique``, ``unique_consecutive``,
``histc``, ``nonzero``.

Stage: public API, engine-neutral. Input: a tensor of either engine. Output: new tensors of that
engine, never requiring grad: torch's derivative table has no gradient for any of them
(``histc``, ``nonzero``: non-differentiable; the unique family: ``not_implemented``). Their
output sizes depend on the data, so they are computed on the tensor's values (numpy) rather
than by a formula, and the results wrapped as tensors of the input's engine.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from transgrad._api import out_args as _out_args
from transgrad._api.functions import wrap_dim
from transgrad._backend import backend_of

__all__ = ["histc", "nonzero", "unique", "unique_consecutive"]


def _data(input: Any) -> np.ndarray:
    return np.asarray(input.detach().numpy())


def _wrap(input: Any, values: np.ndarray, inverse: np.ndarray, counts: np.ndarray,
          return_inverse: bool, return_counts: bool) -> Any:
    B = backend_of(input)
    out = [B.from_numpy(np.asarray(values, order="C"))]
    if return_inverse:
        out.append(B.from_numpy(np.asarray(inverse.astype(np.int64), order="C")))
    if return_counts:
        out.append(B.from_numpy(np.asarray(counts.astype(np.int64), order="C")))
    return out[0] if len(out) == 1 else tuple(out)


def unique(input: Any, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: Optional[int] = None) -> Any:
    """The distinct values (or slices along ``dim``), in ascending order (also for
    ``sorted=False``, as torch on CPU), with the index of each input element's value
    (``return_inverse``, input's shape; along ``dim``: one per slice) and how often each occurs
    (``return_counts``)."""
    a = _data(input)
    if dim is None:
        # each NaN is a value of its own, as torch's (numpy merges them by default)
        values, inverse, counts = np.unique(a.reshape(-1), return_inverse=True,
                                            return_counts=True, equal_nan=False)
        inverse = inverse.reshape(a.shape)
    else:
        d = wrap_dim(dim, a.ndim)
        values, inverse, counts = np.unique(a, return_inverse=True, return_counts=True, axis=d)
        inverse = inverse.reshape(-1)
    return _wrap(input, values.astype(a.dtype), inverse, counts, return_inverse, return_counts)


def unique_consecutive(input: Any, return_inverse: bool = False, return_counts: bool = False,
                       dim: Optional[int] = None) -> Any:
    """Each run of equal consecutive values (or slices along ``dim``) kept once, in order, with
    the run index of each element (``return_inverse``) and the run lengths
    (``return_counts``)."""
    a = _data(input)
    if dim is None:
        flat = a.reshape(-1)
        change = flat[1:] != flat[:-1]
        moved = flat
    else:
        d = wrap_dim(dim, a.ndim)
        moved = np.moveaxis(a, d, 0)
        rows = moved.reshape(moved.shape[0], -1)
        change = np.any(rows[1:] != rows[:-1], axis=1)
    n = moved.shape[0]
    starts = np.flatnonzero(np.concatenate([[True], change])) if n else np.zeros(0, np.int64)
    inverse = np.cumsum(np.concatenate([[0], change.astype(np.int64)])) if n else (
        np.zeros(0, np.int64))
    counts = np.diff(np.append(starts, n))
    values = moved[starts]
    if dim is None:
        inverse = inverse.reshape(a.shape)
    else:
        values = np.moveaxis(values, 0, d)
    return _wrap(input, values, inverse, counts, return_inverse, return_counts)


def histc(input: Any, bins: int = 100, min: float = 0, max: float = 0, *,
          out: Any = None) -> Any:  # noqa: A002
    """The histogram of ``input`` in ``bins`` equal bins over [min, max] (both 0: the data's own
    range); elements outside are ignored, ``max`` itself falls in the last bin."""
    if out is not None:
        return _out_args.write_out("histc", histc, (input, bins, min, max), {}, out)
    if bins <= 0:
        raise RuntimeError("torch.histogram(): bins must be > 0, but got "
                           f"{bins} for dimension 0")
    a = _data(input).reshape(-1)
    if input.dtype.kind not in "f":
        raise RuntimeError(f"\"histogram_cpu\" not implemented for '{input.dtype}'")
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(np.min(a)), float(np.max(a))
    if lo == hi:
        lo, hi = lo - 1.0, hi + 1.0
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    counts, _ = np.histogram(a[~np.isnan(a)], bins=bins, range=(lo, hi))
    return backend_of(input).from_numpy(counts.astype(a.dtype))


def nonzero(input: Any, *, as_tuple: bool = False, out: Any = None) -> Any:
    """The indices of the non-zero elements: an (n, ndim) int64 tensor in row-major order, or
    with ``as_tuple`` one 1-D tensor per dim (a 0-d input counts as 1-d)."""
    if out is not None:
        return _out_args.write_out("nonzero", nonzero, (input,), {"as_tuple": as_tuple}, out)
    a = _data(input)
    B = backend_of(input)
    where = np.argwhere(a.reshape(a.shape or (1,)) != 0).astype(np.int64)
    if as_tuple:
        return tuple(B.from_numpy(np.asarray(where[:, i], order="C"))
                     for i in range(where.shape[1]))
    if a.ndim == 0:
        where = where[:, :0]
    return B.from_numpy(np.asarray(where, order="C"))
