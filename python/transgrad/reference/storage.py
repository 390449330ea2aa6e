"""A reference tensor's storage (issue 11): the numpy array at the root of its ``base`` chain (the
array that owns the memory, or the array given to ``from_numpy``, held by ``StorageRoot``), seen
as one flat run of elements; a tensor's storage offset is its first element's distance from that
run's start. Depends on numpy only (the tensor, the kernels and the API layer import it).
"""

from __future__ import annotations

import numpy as np

__all__ = ["StorageRoot", "empty_strides", "storage_of", "storage_offset_of"]


class StorageRoot:
    """Holds an array given to ``from_numpy`` as the start of a new storage, as torch's
    ``from_numpy`` makes the array's first element the storage's (a view of a larger array does
    not reach the rest of it): ``np.asarray(StorageRoot(a))`` is ``a``'s memory with a base that
    ``storage_of`` does not walk past."""

    __slots__ = ("__array_interface__", "_keep")

    def __init__(self, a: np.ndarray) -> None:
        interface = dict(a.__array_interface__)
        interface["strides"] = a.strides  # numpy leaves None for what it deems contiguous
        self.__array_interface__ = interface
        self._keep = a


def storage_of(a: np.ndarray) -> np.ndarray:
    """The 1-D array of ``a``'s whole storage, in memory order (a view, never a copy)."""
    root = a
    while True:  # numpy's as_strided leaves a DummyArray holding the array as the base
        base = root.base
        if not isinstance(base, np.ndarray) and type(base).__name__ == "DummyArray":
            base = getattr(base, "base", None)
        if not isinstance(base, np.ndarray):
            break
        root = base
    if root.flags.c_contiguous or root.flags.f_contiguous:
        flat = root.ravel(order="K")  # a view: the root is one block
    else:  # a strided array given to from_numpy: its storage spans what it reaches
        if any(st < 0 for st in root.strides):
            raise RuntimeError("as_strided: the tensor's storage has negative strides")
        span = 0 if root.size == 0 else 1 + sum(
            (n - 1) * (st // root.itemsize) for n, st in zip(root.shape, root.strides))
        flat = np.lib.stride_tricks.as_strided(root, (span,), (root.itemsize,),
                                               writeable=bool(root.flags.writeable))
    if flat.dtype != a.dtype and flat.nbytes % a.itemsize == 0:  # a tensor.view(dtype)
        flat = flat.view(np.uint8).view(a.dtype)
    return flat


def storage_offset_of(a: np.ndarray) -> int:
    """Elements between the start of ``a``'s storage and ``a``'s first element."""
    flat = storage_of(a)
    diff = a.__array_interface__["data"][0] - flat.__array_interface__["data"][0]
    return diff // max(a.itemsize, 1)


def empty_strides(shape: tuple, strides: tuple, unit: int) -> tuple:
    """Strides (in units of ``unit`` bytes, or elements with 1) of an array without elements,
    its zero strides replaced by contiguous ones: numpy gives a new empty array zero strides,
    torch contiguous ones (no element is read through them)."""
    acc, fixed = unit, []
    for size, st in zip(reversed(shape), reversed(strides)):
        fixed.append(st or acc)
        acc *= max(size, 1)
    return tuple(reversed(fixed))
