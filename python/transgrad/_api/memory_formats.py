"""Memory formats (issue 11): torch's ``contiguous_format``, ``channels_last`` (NHWC strides of a
4-D tensor), ``channels_last_3d`` (NDHWC, 5-D) and ``preserve_format`` on ``contiguous``,
``clone``, ``to``, ``is_contiguous`` and the ``*_like`` factories, on both engines.

Note [Memory formats are stride orders]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A memory format is an order of the dims from outermost to innermost in memory: contiguous is
(0, 1, ..., n-1), channels_last (0, 2, 3, 1), channels_last_3d (0, 2, 3, 4, 1). A tensor laid out
in an order is made by permuting into it, copying (``contiguous``/``clone``) and permuting back,
so the result is differentiable with the ops' own nodes and every kernel sees an ordinary
strided tensor (kernels take any strides: a channels_last input gives the same values as a
contiguous one). ``preserve_format`` keeps the order of a non-overlapping, dense input (its
strides, as torch), else contiguous. As torch, a size-1 dim's stride does not count when a
layout is compared.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from transgrad._api.settings import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    memory_format,
    preserve_format,
)
from transgrad._backend import backend_of

__all__ = ["format_order", "dense_order", "format_strides", "is_contiguous", "contiguous",
           "clone", "like_order", "laid_out", "METHODS"]

Order = tuple[int, ...]


def check_format(fmt: Any, fname: str) -> Any:
    """``fmt`` when it is a memory format (None means the default of ``fname``); TypeError else."""
    if fmt is not None and (not isinstance(fmt, memory_format) or type(fmt) is not memory_format):
        raise TypeError(f"{fname}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{type(fmt).__name__}")
    return fmt


def format_order(fmt: Any, ndim: int) -> Optional[Order]:
    """The dim order of ``fmt`` for a tensor of ``ndim`` dims (torch's error for the wrong rank);
    None for contiguous_format."""
    if fmt is channels_last:
        if ndim != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
        return (0, 2, 3, 1)
    if fmt is channels_last_3d:
        if ndim != 5:
            raise RuntimeError("required rank 5 tensor to use channels_last_3d format")
        return (0, 2, 3, 4, 1)
    return None


def format_strides(shape: tuple, order: Optional[Order]) -> tuple[int, ...]:
    """Strides (elements) of ``shape`` laid out dims-outermost-first in ``order``."""
    order = tuple(range(len(shape))) if order is None else order
    strides = [0] * len(shape)
    acc = 1
    for d in reversed(order):
        strides[d] = acc
        acc *= max(int(shape[d]), 1)
    return tuple(strides)


def _same_layout(shape: tuple, have: tuple, want: tuple) -> bool:
    return all(h == w for s, h, w in zip(shape, have, want) if s != 1)


def dense_order(x: Any) -> Optional[Order]:
    """The dim order of ``x`` when its elements fill one block without overlap (a permutation
    of a contiguous layout), else None."""
    shape, strides = tuple(x.shape), tuple(x.stride())
    order = tuple(sorted(range(len(shape)), key=lambda d: (-strides[d], d)))
    return order if _same_layout(shape, strides, format_strides(shape, order)) else None


def is_contiguous(self: Any, memory_format: Any = contiguous_format) -> bool:
    """Whether ``self`` is laid out in ``memory_format`` (channels_last of a tensor that is not
    4-D is False, as torch)."""
    if memory_format is contiguous_format or memory_format is preserve_format:
        return self._is_contiguous()  # the engine's own flag
    check_format(memory_format, "is_contiguous")
    shape = tuple(self.shape)
    if memory_format not in (channels_last, channels_last_3d):
        return self._is_contiguous()
    if len(shape) != (4 if memory_format is channels_last else 5):
        return False
    if 0 in shape:
        return True
    return _same_layout(shape, tuple(self.stride()),
                        format_strides(shape, format_order(memory_format, len(shape))))


def _inverse(order: Order) -> Order:
    inv = [0] * len(order)
    for i, d in enumerate(order):
        inv[d] = i
    return tuple(inv)


def _copy_in_order(x: Any, order: Optional[Order]) -> Any:
    """A clone of ``x`` laid out in ``order`` (Note [Memory formats are stride orders]): one
    CloneBackward0 node, as torch's."""
    ops = backend_of(x).ops
    if order is None or order == tuple(range(x.ndim)):
        return ops.clone(x)
    return ops.clone(x, tuple(order))


def contiguous(self: Any, memory_format: Any = contiguous_format) -> Any:
    """``self`` when already laid out in ``memory_format``, else a copy that is (differentiable)."""
    if memory_format is contiguous_format or memory_format in (None, preserve_format):
        if memory_format is not contiguous_format:
            check_format(memory_format, "contiguous")
        # torch's: self when contiguous, else a clone (CloneBackward0)
        return self if self._is_contiguous() else backend_of(self).ops.clone(self)
    check_format(memory_format, "contiguous")
    if is_contiguous(self, memory_format):
        format_order(memory_format, self.ndim)
        return self
    order = format_order(memory_format, self.ndim)
    return _copy_in_order(self, order)


def clone(input: Any, *, memory_format: Any = preserve_format) -> Any:
    """A copy of ``input`` with its own storage (differentiable), laid out in ``memory_format``:
    preserve_format keeps a dense input's strides, as torch."""
    check_format(memory_format, "clone")
    if memory_format in (None, preserve_format):
        order = dense_order(input)
    else:
        order = format_order(memory_format, input.ndim)
    return _copy_in_order(input, order)


def like_order(x: Any, memory_format: Any, fname: str = "empty_like") -> Optional[Order]:
    """The dim order a ``*_like`` factory lays its result out in for ``memory_format``
    (preserve: ``x``'s when ``x`` is dense); None for contiguous."""
    check_format(memory_format, fname)
    if memory_format in (None, preserve_format):
        order = dense_order(x) if x.ndim else None
    else:
        order = format_order(memory_format, x.ndim)
    return None if order is None or order == tuple(range(x.ndim)) else order


def laid_out(a: np.ndarray, order: Optional[Order]) -> np.ndarray:
    """The values of ``a`` in an array whose memory follows ``order`` (numpy strides)."""
    if order is None:
        return a
    return np.transpose(np.asarray(np.transpose(a, order), order="C"), _inverse(order))


# (Tensor.clone is functions.clone, which comes here for another layout than row-major)
METHODS = {"is_contiguous": is_contiguous, "contiguous": contiguous}
