"""The numpy kernels of arbitrary strided geometry (issue 11): ``as_strided``, a view of a
tensor's storage with the given sizes, strides and offset (in elements), bounds-checked against
the storage with torch's errors (Note [as_strided is bounds-checked] in csrc/kernels/shape.cpp
states the order), and ``strided_positions``, the storage positions a geometry reads.

A reference tensor's storage: reference/storage.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from transgrad.reference.kernel_support import _arr, _check_size, _new, _view
from transgrad.reference.storage import storage_of

__all__ = ["as_strided", "strided_positions"]

_INT64_MAX = 2**63 - 1


def _check_geometry(size: Sequence[int], stride: Sequence[int], offset: int) -> None:
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(st < 0 for st in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")


def _storage_bytes(size: Sequence[int], stride: Sequence[int], offset: int, item: int) -> int:
    """Bytes the geometry reaches from the storage's start (0 without elements); torch's error
    where a size is negative or the count leaves int64 (Python's ints do not overflow: the
    bound is checked, so both engines refuse the same geometries)."""
    if any(s < 0 for s in size) or (0 not in size and (
            (need := (offset + 1 + sum((s - 1) * st for s, st in zip(size, stride))) * item)
            > _INT64_MAX or any((s - 1) * st > _INT64_MAX for s, st in zip(size, stride)))):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    return 0 if 0 in size else need


def as_strided(x: Any, size: Sequence[int], stride: Sequence[int], storage_offset: int) -> Any:
    a = _arr(x)
    size, stride = [int(s) for s in size], [int(s) for s in stride]
    offset = int(storage_offset)
    _check_geometry(size, stride, offset)
    need = _storage_bytes(size, stride, offset, a.itemsize)
    flat = storage_of(a)
    if need > flat.nbytes:
        raise RuntimeError(f"setStorage: sizes {size}, strides {stride}, storage offset {offset}, "
                           f"and itemsize {a.itemsize} requiring a storage size of {need} are out "
                           f"of bounds for storage of size {flat.nbytes}")
    _check_size(size, a.dtype)  # the view's own elements and bytes fit in int64, as every view's
    start = flat[min(offset, flat.size):]
    # a dim of size 0 or 1 never steps: its stride need not fit numpy's C long (the others
    # do, the storage bound holds them); numpy then reports the clamped value
    empty = 0 in size
    byte_strides = tuple(min(st * a.itemsize, 2**62) if empty or n <= 1 else st * a.itemsize
                         for n, st in zip(size, stride))
    try:
        out = np.lib.stride_tricks.as_strided(start, tuple(size), byte_strides,
                                              writeable=bool(a.flags.writeable))
    except ValueError:  # numpy holds no array whose non-zero sizes multiply past its limit
        raise RuntimeError(f"Storage size calculation overflowed with sizes={size}: the "
                           "reference engine (numpy) cannot hold this empty view") from None
    return _view(out, x)


def strided_positions(size: Sequence[int], stride: Sequence[int], storage_offset: int) -> Any:
    size, stride = [int(s) for s in size], [int(s) for s in stride]
    _check_geometry(size, stride, int(storage_offset))
    _storage_bytes(size, stride, int(storage_offset), 1)
    out = np.full(tuple(size), int(storage_offset), np.int64)
    for d, (s, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = s
        out += (np.arange(s, dtype=np.int64) * st).reshape(shape)
    return _new(out)
