"""In-place changes of a tensor's shape: ``squeeze_``, ``unsqueeze_``, ``t_``, ``transpose_``,
``swapdims_``/``swapaxes_`` (metadata only: the same storage seen another way) and ``resize_``
/ ``resize_as_`` (a new shape over the tensor's elements in storage order), with torch's autograd
rules and errors. Shared by both engines (installed as Tensor methods by ``methods.py``).

Note [In-place metadata changes]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``x.t_()`` makes the tensor object ``x`` become ``x.t()``: the out-of-place view is computed (its
checks are torch's, and while autograd records it has the view's node, ``TBackward0``), then
``x`` takes that view's metadata over the same storage (``_set_data``) and its history
(``set_history_``), and the shared version counter is bumped, as torch's. Refused while
recording, as torch: a leaf that requires grad, a view of one, an output of a multi-view
function. The view registry (Note [In-place on views] in views.py) is kept true: a view ``x`` of
``base`` gets the op appended to its chain (so later in-place ops on ``x`` still write the right
elements of ``base``); when ``x`` is itself a base with live views, each view's chain is prefixed
with the step that turns the new ``x`` back into the old one (the same transpose; a reshape to the
old shape for squeeze/unsqueeze, which only move size-1 dims), so it replays correctly.

``resize_`` follows torch where the shape's elements are already there: a contiguous tensor
resized to at most its size is the first elements of its storage (from its offset) in the new
shape, over the same storage. Growing allocates a new storage holding the old elements then
zeros (torch leaves them uninitialised and grows the one shared storage; here views made before
the growth keep the old storage). A tensor that requires grad cannot be resized (torch's error).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from transgrad._api import functions as fn
from transgrad._api.dtype_checks import cpp_name
from transgrad._api.functions import as_strided
from transgrad._api.memory_formats import format_strides
from transgrad._api.views import Step, offset_in_storage, registry_for
from transgrad._backend import backend_of

__all__ = ["squeeze_", "unsqueeze_", "t_", "transpose_", "swapdims_", "swapaxes_", "resize_",
           "resize_as_", "as_strided_", "set_", "resize", "METHODS"]


def _check_recording(self: Any, B: Any) -> None:
    views = registry_for(B)
    info = views.get(self)
    if self.is_leaf and self.requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    if info is None:
        return
    if info.multi is not None:
        name, i = info.multi
        raise RuntimeError(f"Output {i} of {name}() is a view and is being modified in place. "
                           f"This view is one of several views returned by {name}(), which do "
                           "not allow their outputs to be modified in place while autograd "
                           "records. Replace the in-place operation by an out-of-place one, or "
                           "clone() the view first.")
    if info.base.is_leaf and info.base.requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")


def _take_over(self: Any, new: Any) -> None:
    """``self`` becomes ``new`` (a view of the same storage): metadata, then history."""
    base = getattr(self, "_base", None)
    self._set_data(new)
    if base is not None and not isinstance(getattr(type(self), "_base", None), property):
        self._base = base  # the reference tensor's own view link: still a view of its base
    if self.requires_grad or new.requires_grad:
        backend_of(self).set_history_(self, new)


def _metadata_op(self: Any, view_fn: Callable[..., Any], args: tuple,
                 inverse: Callable[[tuple], Step]) -> Any:
    """Note [In-place metadata changes]: ``self`` becomes ``view_fn(self, *args)``."""
    B = backend_of(self)
    views = registry_for(B)
    recording = B.autograd.is_grad_enabled() and self.requires_grad
    if recording:
        _check_recording(self, B)
    old_shape = tuple(self.shape)
    new = view_fn(self, *args)  # torch's dimension checks; the node while recording
    if new is self:  # t_() of a tensor with fewer than 2 dims
        self._bump_version()
        return self
    info = views.get(self)
    step: Step = (view_fn, args, {})
    kids = views.children(self) if info is None else []
    _take_over(self, new)
    self._bump_version()
    if info is not None:
        views.set_chain(self, info.chain + (step,))
    else:
        back = inverse(old_shape)
        for v in kids:
            kid = views.get(v)
            if kid is not None:
                views.set_chain(v, (back,) + kid.chain)
    return self


def _back_by_reshape(old_shape: tuple) -> Step:
    return (fn.reshape, (old_shape,), {})


def squeeze_(self: Any, dim: Any = None) -> Any:
    """In place: ``self`` without its size-1 dims (only ``dim`` when given)."""
    return _metadata_op(self, fn.squeeze, () if dim is None else (dim,), _back_by_reshape)


def unsqueeze_(self: Any, dim: int) -> Any:
    """In place: ``self`` with a size-1 dim inserted at ``dim``."""
    return _metadata_op(self, fn.unsqueeze, (dim,), _back_by_reshape)


def transpose_(self: Any, dim0: int, dim1: int) -> Any:
    """In place: ``self`` with dims ``dim0`` and ``dim1`` swapped."""
    return _metadata_op(self, fn.transpose, (dim0, dim1),
                        lambda _old: (fn.transpose, (dim0, dim1), {}))


def t_(self: Any) -> Any:
    """In place: the transpose of a tensor of at most 2 dims."""
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self.ndim}D")
    return _metadata_op(self, fn.t, (), lambda _old: (fn.t, (), {}))


swapdims_ = swapaxes_ = transpose_


def _sizes(size: tuple) -> tuple:
    if len(size) == 1 and not isinstance(size[0], (int, np.integer)):
        size = tuple(size[0])
    out = tuple(int(s) for s in size)
    for s in out:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(out)}")
    return out


def resize_(self: Any, *size: Any, memory_format: Any = None) -> Any:
    """In place: ``self`` with shape ``size`` over its elements in storage order (Note
    [In-place metadata changes]: growing gives a new storage, the new elements zero)."""
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    B = backend_of(self)
    shape = _sizes(size)
    n, have = math.prod(shape), math.prod(self.shape)
    if shape == tuple(self.shape):
        return self
    views = registry_for(B)
    info = views.get(self)
    version = self._version
    with B.autograd.no_grad():
        order = _storage_order(self)
        ordered = self if not order else fn.permute(self, *order[0][1])
        if n <= have and order is not None:
            steps = order + ((fn.reshape, ((have,),), {}), (fn.narrow, (0, 0, n), {}),
                             (fn.reshape, (shape,), {}))
            new = self
            for f, args, _ in steps:
                new = f(new, *args)
            _take_over(self, new)
            if info is not None:
                views.set_chain(self, info.chain + steps)
        else:  # the elements in storage order where they fill a block, else in logical order
            data = np.zeros(n, np.dtype(self.dtype))
            old = np.asarray(ordered.detach()).reshape(-1)
            data[:min(n, have)] = old[:min(n, have)]
            self._set_data(B.from_numpy(data.reshape(shape)))
            views.forget(self)
    while self._version <= version:  # a new storage starts a new counter: continue the old one
        self._bump_version()
    return self


def _storage_order(self: Any) -> tuple[Step, ...] | None:
    """The permutation that lays ``self``'s elements out in storage order, when they fill one
    contiguous block (a contiguous or transposed tensor); None otherwise."""
    perm = tuple(sorted(range(self.ndim), key=lambda d: -self.stride()[d]))
    if perm == tuple(range(self.ndim)):
        return () if self.is_contiguous() else None
    return ((fn.permute, (perm,), {}),) if fn.permute(self, perm).is_contiguous() else None


def resize_as_(self: Any, the_template: Any, *, memory_format: Any = None) -> Any:
    """In place: ``self.resize_(the_template.shape)``."""
    return resize_(self, tuple(the_template.shape))


def as_strided_(self: Any, size: Any, stride: Any, storage_offset: Any = None) -> Any:
    """In place: ``self`` becomes ``self.as_strided(size, stride, storage_offset)`` (Note [In-place
    metadata changes]; a view's chain gets the step, a base's views are rebuilt through the old
    geometry, as_strided being relative to the storage)."""
    old_stride, old_offset = tuple(self.stride()), offset_in_storage(self)
    return _metadata_op(self, as_strided, (size, stride, storage_offset),
                        lambda old: (as_strided, (old, old_stride, old_offset), {}))


def set_(self: Any, source: Any = None, storage_offset: Any = None, size: Any = None,
         stride: Any = None) -> Any:
    """In place: ``self`` takes ``source``'s storage, sizes, strides and offset (``set_()``: an
    empty storage, shape (0,)); with ``size`` (and ``stride``, contiguous when None) the geometry
    over ``source``'s storage instead, from ``storage_offset``. As torch: a leaf that requires grad
    is refused while grad mode is on (``Parameter.set_`` under ``no_grad`` is how a parameter is
    re-pointed); the new metadata is ``self``'s, its autograd identity is kept."""
    B = backend_of(self)
    if B.autograd.is_grad_enabled() and self.requires_grad:
        _check_recording(self, B)
    if source is None:
        new = B.from_numpy(np.zeros((0,), np.dtype(self.dtype)))
    else:
        if not hasattr(source, "_shares_storage"):
            raise TypeError(f"set_(): argument 'source' must be Tensor, not "
                            f"{type(source).__name__}")
        if source.dtype != self.dtype:
            raise RuntimeError(f"Could not set tensor of type {cpp_name(source.dtype)} to a "
                               f"tensor of type {cpp_name(self.dtype)}")
        new = source.detach()
        if size is not None:
            size_t = tuple(int(v) for v in (size if not isinstance(size, int) else (size,)))
            stride_t = (tuple(int(v) for v in stride) if stride is not None else
                        format_strides(size_t, None))
            with B.autograd.no_grad():
                new = as_strided(new, size_t, stride_t,
                                 0 if storage_offset is None else int(storage_offset))
    registry_for(B).forget(self)
    self._set_data(new)
    self._bump_version()
    return self


def resize(self: Any, *sizes: Any) -> Any:
    """The legacy out-of-place ``Tensor.resize``: torch warns that it is deprecated and gives
    ``self``'s elements with shape ``sizes``, which must hold as many elements (autograd's
    resize changes only the shape); differentiable (a reshape of the contiguous values)."""
    import warnings

    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    shape = _sizes(sizes)
    n, have = math.prod(shape), math.prod(self.shape)
    if n != have:
        def x_of(s: tuple) -> str:
            return "x".join(str(v) for v in s)
        raise RuntimeError(f"requested resize to {x_of(shape)} ({n} elements in total), but the "
                           f"given tensor has a size of {x_of(tuple(self.shape))} ({have} "
                           "elements). autograd's resize can only change the shape of a given "
                           "tensor, while preserving the number of elements. ")
    return fn.reshape(fn.contiguous(self), shape)


METHODS = {"squeeze_": squeeze_, "unsqueeze_": unsqueeze_, "t_": t_, "transpose_": transpose_,
           "swapdims_": swapdims_, "swapaxes_": swapaxes_, "resize_": resize_,
           "resize_as_": resize_as_, "as_strided": as_strided, "as_strided_": as_strided_,
           "set_": set_, "resize": resize}
