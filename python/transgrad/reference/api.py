"""The reference engine as a ``transgrad._api`` backend (see ``transgrad/_api/__init__.py``)."""

from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np

from transgrad import lang
from transgrad._api.inplace_verdicts import VerdictTable
from transgrad._backend import Backend
from transgrad._op_registry import SHIPPED
from transgrad.reference import autograd, kernel_support, optim_kernels
from transgrad.reference.tensor import Tensor


class _Ops:
    """The shipped ops (namespace ``transgrad``), as ``lang.ops`` sees them from a shipped
    formula; the first lookup loads the shipped formulas under a lock, so that a thread never
    sees a half-loaded registry while another thread is importing it."""

    _lock = threading.Lock()
    _ready = False

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if not _Ops._ready:
            with _Ops._lock:
                lang.load_builtin_formulas()
                _Ops._ready = True
        return lang.resolve_op(SHIPPED, name)


def from_numpy(a: np.ndarray) -> Tensor:
    return Tensor._from_array(a)


def wrapped_number(a: np.ndarray) -> Tensor:
    """A 0-d array as a wrapped number (Note [Type promotion] in transgrad/_dtypes.py)."""
    t = Tensor._from_array(a)
    t._wrapped = True
    return t


def inplace_(dst: Tensor, src: Tensor) -> None:
    """Write ``src`` into ``dst``'s storage, bump its version, give it ``src``'s history."""
    if not dst._data.flags.writeable:
        raise RuntimeError("cannot write into this tensor: its storage is read-only (an "
                           "expanded view, or a read-only numpy array); clone() it first")
    a = dst._data
    if any(st == 0 and n > 1 for n, st in zip(a.shape, a.strides)):  # torch's internal overlap
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation. (an expanded view: several "
                           "elements share memory)")
    np.copyto(dst._data, src._data, casting="unsafe")
    dst._bump_version()
    if src.grad_fn is not None:
        dst.grad_fn, dst.output_nr = src.grad_fn, src.output_nr
    elif dst.grad_fn is not None and autograd.is_grad_enabled():
        dst.grad_fn, dst.output_nr = None, 0  # the new value does not depend on anything


def set_history_(dst: Tensor, src: Tensor) -> None:
    """Give ``dst`` the history of ``src`` (a view replayed from its base), without copying."""
    dst.grad_fn, dst.output_nr = src.grad_fn, src.output_nr


backend = Backend(
    name="transgrad.reference", Tensor=Tensor, ops=_Ops(), from_numpy=from_numpy,
    wrapped_number=wrapped_number, set_default_dtype=kernel_support.set_default_dtype,
    autograd=autograd, inplace_=inplace_, set_history_=set_history_, optim=optim_kernels,
    # formulas run here may be a user's: always the translator's verdict (Note [Verdicts as
    # data] in transgrad/_api/inplace_verdicts.py)
    inplace_verdict=VerdictTable(None), operators=dict)  # the Python operators as they are
