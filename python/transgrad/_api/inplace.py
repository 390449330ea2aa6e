"""Running an op in place: ``x.add_(y)``, ``x.exp_()``, ``x[i] = v``, ``x.copy_(src)``.

Input: the tensor, a function computing its new value out of place, the other operands and the
formula whose in-place verdict applies. Output: the tensor, its storage overwritten and its
history taken from the result (``backend.inplace_``).

Note [In-place ops]
~~~~~~~~~~~~~~~~~~~
``x.add_(y)`` computes the out-of-place result and writes it into ``x`` (``backend.inplace_``:
same storage, version bumped, history taken from the result). When autograd records, a leaf that
requires grad (or a view of one) is refused, as PyTorch. Whether the op may read ``x`` itself
or must run on a copy is the translator's verdict for its formula (translator/inplace.py, Note
[In-place variants]; shipped as data, Note [Verdicts as data] in inplace_verdicts.py): ``safe``
(exp_, relu_, neg_, add_) computes from ``x`` directly; ``copy`` (mul_, div_, clamp_:
``@formula(inplace_saves_copy=True)``) computes from a clone, which the node saves; ``unsafe``
(sin_, log_) is refused with the reason. A registered view (views.py) writes through its base:
Note [In-place on views]. Under no_grad (optimizer steps) nothing is cloned, nothing is
recorded and every variant runs.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from transgrad._api.views import (
    multi_view_message,
    refresh_views,
    registry_for,
    scatter_into_base,
)
from transgrad._backend import backend_of, is_tensor
from transgrad._dtypes import can_cast


def _memory(x: Any) -> tuple[int, int, tuple[int, ...], bool]:
    """(first byte, one past the last byte, strides in bytes, non-overlapping and dense) of the
    elements ``x`` addresses (Note [Partial overlap])."""
    data = getattr(x, "_data", None)  # the reference engine's numpy array
    if isinstance(data, np.ndarray):
        begin, strides, item = data.__array_interface__["data"][0], data.strides, data.itemsize
    else:
        item = np.dtype(x.dtype).itemsize
        begin, strides = x.data_ptr(), tuple(s * item for s in x.stride())
    shape = tuple(x.shape)
    n = int(np.prod(shape, dtype=np.int64))
    dense, expect = True, item
    for size, stride in sorted(zip(shape, strides), key=lambda d: abs(d[1])):
        if size == 1:
            continue
        if stride != expect:
            dense = False
            break
        expect *= size
    return begin, begin + n * item, tuple(strides), dense


def _check_no_partial_overlap(self: Any, operands: tuple) -> None:
    """torch's check for an op that writes ``self`` while reading ``operands``.

    Note [Partial overlap]
    ~~~~~~~~~~~~~~~~~~~~~~
    An in-place op here computes its result out of place and then copies it in, so
    ``x[1:].copy_(x[:-1])`` or ``x.add_(x.t())`` would give a well-defined answer where torch,
    which writes while it reads, refuses. Programs that work here must work with torch, so the
    same cases are refused, with torch's text: both tensors dense and non-overlapping (torch's
    is_non_overlapping_and_dense), their byte ranges intersecting, and not the very same
    elements in the same order (``x.add_(x)`` is allowed). Layouts torch calls "too hard" to
    decide (an operand that is not dense) are let through, as in torch.
    """
    if int(np.prod(tuple(self.shape), dtype=np.int64)) == 0:
        return
    a = None
    for o in operands:
        if not is_tensor(o) or o is self or int(np.prod(tuple(o.shape), dtype=np.int64)) == 0:
            continue
        a = a or _memory(self)
        b = _memory(o)
        if not (a[3] and b[3]) or not (a[0] < b[1] and b[0] < a[1]):
            continue
        if (a[0], a[1]) == (b[0], b[1]) and a[2] == b[2]:
            continue
        raise RuntimeError("unsupported operation: some elements of the input tensor and the "
                           "written-to tensor refer to a single memory location. Please clone() "
                           "the tensor before performing the operation.")


def _needs_copy(backend: Any, formula: Optional[str]) -> bool:
    """Whether the in-place op must run on a copy; raises for an unsafe variant."""
    if formula is None:
        return False
    v = backend.inplace_verdict(formula)
    if v is None or v.needs_copy:
        return True
    if not v.allowed:
        raise RuntimeError(
            f"{formula}_(): cannot run in place while autograd records: {v.reason} "
            f"(the saved input would be lost). Use the out-of-place op instead "
            f"(y = x.{formula}()), or run it under no_grad(); a formula of your own can ask "
            f"for a copy with @formula(inplace_saves_copy=True).")
    return False


NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace to "
    "be tracked).")


def run_inplace(self: Any, compute: Callable[[Any], Any], operands: tuple = (),
                formula: Optional[str] = "?") -> Any:
    """Write ``compute(self)`` (or ``compute(copy of self)``) into ``self`` (Note [In-place
    ops]); ``formula`` is the verdict to follow ("?": unknown, run on a copy; None: ``compute``
    does not read ``self``'s value in a way a node saves)."""
    B = backend_of(self)
    _check_no_partial_overlap(self, operands)
    ag = B.autograd
    recording = ag.is_grad_enabled() and (self.requires_grad or any(
        is_tensor(o) and o.requires_grad for o in operands))
    if not recording and ag.is_grad_enabled():
        info = registry_for(B).get(self)
        if info is not None and info.no_grad:  # torch's words
            raise RuntimeError(NO_GRAD_VIEW)
        # a view made before its leaf base's requires_grad_()
        if info is not None and info.base.is_leaf and info.base.requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used "
                               "in an in-place operation.")
    if not recording:
        with ag.no_grad():
            new = compute(self)
        B.inplace_(self, _fit(B, self, new, False))
        return self
    if self.is_leaf and self.requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    views = registry_for(B)
    info = views.get(self)
    if info is not None:
        if info.multi is not None:
            raise RuntimeError(multi_view_message(info.multi, True))
        if info.base.is_leaf and info.base.requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used "
                               "in an in-place operation.")
    copy = formula == "?" or _needs_copy(B, formula)
    new = _fit(B, self, compute(B.ops.clone(self) if copy else self), True)
    if self.requires_grad and not new.requires_grad:
        # torch keeps the result in the graph, with a zero gradient to self's old value
        # (fill_, zero_, copy_ of a constant, the random samplers): a where() that takes
        # every element from ``new`` is that node
        everywhere = B.from_numpy(np.ones(tuple(self.shape), dtype=bool))
        new = B.ops.where(everywhere, new, self)
    if info is None:
        B.inplace_(self, new)
        refresh_views(B, views, self)
        return self
    base_new = scatter_into_base(B, info, new)  # Note [In-place on views]
    B.inplace_(info.base, base_new)
    refresh_views(B, views, info.base)
    return self


def _fit(B: Any, self: Any, new: Any, recording: bool) -> Any:
    if tuple(new.shape) != tuple(self.shape):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the "
                           f"broadcast shape {list(new.shape)}")
    if new.dtype != self.dtype:
        if not can_cast(new.dtype, self.dtype):
            raise RuntimeError(f"result type {_TORCH_NAMES.get(new.dtype.name, new.dtype.name)} "
                               "can't be cast to the desired output type "
                               f"{_TORCH_NAMES.get(self.dtype.name, self.dtype.name)}")
        with B.autograd.set_grad_enabled(recording):
            new = B.ops.cast(new, self.dtype.name)
    return new


# torch's names of dtypes in its casting errors (c10::ScalarType)
_TORCH_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
                "int64": "Long", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
                "float64": "Double", "complex128": "ComplexDouble"}


