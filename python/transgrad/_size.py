"""``transgrad.Size``: a tensor's shape as torch names it, the type of ``x.shape`` and
``x.size()`` on both engines.

Input: an iterable of ints. Output: a ``tuple`` subclass that prints as ``torch.Size([2, 3])``,
equals (and hashes as) the plain tuple, and stays a ``Size`` through slicing, ``+`` and ``*``, as
torch's does. This module imports nothing of transgrad: the compiled engine's ``shape`` builds
its instances in C++ (``size_object`` in csrc/python/tensor_binding.cpp imports this module:
Note [Size from C++]) and the reference engine's from numpy's shape tuple, both without running
``__new__``'s checks.
"""

from __future__ import annotations

import operator
from typing import Any, SupportsIndex

# Note [Size from C++]
# ~~~~~~~~~~~~~~~~~~~~
# ``x.shape`` is read in many Python paths, so building a Size must cost what building the tuple
# does: the compiled engine looks this class up once and makes each instance with tuple's own
# constructor from C++ (no Python frame, no per-item check: the sizes are ints already); the
# reference engine calls ``tuple.__new__(Size, shape)`` (``size_of``). Only
# slicing pays for ``__getitem__`` in Python; an int index takes tuple's path after one type test.

_tuple_new = tuple.__new__
_tuple_getitem = tuple.__getitem__


def _type_name(v: Any) -> str:
    t = type(v)
    if t.__name__ == "Tensor":
        return "Tensor"
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as ``torch.Size([2, 3])`` and equals the
    plain tuple ``(2, 3)`` (not the list); ``numel()`` is its product. Slicing, ``+`` (with a
    tuple, either side) and ``*`` (by an int) give a ``Size``."""

    __slots__ = ()

    def __new__(cls, sizes: Any = ()) -> Size:
        values = []
        for i, v in enumerate(sizes):
            try:
                values.append(operator.index(v))  # ints, bools, numpy ints, 0-d int tensors
            except TypeError:
                raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                                f"'{_type_name(v)}')") from None
        return _tuple_new(cls, values)

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def numel(self) -> int:
        """The number of elements of a tensor of this shape (1 for ``Size([])``)."""
        n = 1
        for v in self:
            n *= v
        return n

    def __getitem__(self, key: Any) -> Any:
        if key.__class__ is slice:
            return _tuple_new(Size, _tuple_getitem(self, key))
        return _tuple_getitem(self, key)

    def __add__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to "
                            "torch.Size")
        return _tuple_new(Size, tuple.__add__(self, other))

    def __radd__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return _tuple_new(Size, tuple.__add__(other, self))

    def __mul__(self, n: SupportsIndex) -> Size:
        return _tuple_new(Size, tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __reduce__(self) -> Any:
        return Size, (tuple(self),)


def size_of(shape: tuple) -> Size:
    """``shape`` (a tuple of ints, as numpy's) as a Size, without checking its items."""
    return _tuple_new(Size, shape)
