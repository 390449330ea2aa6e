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
from transgrad.reference.multi_view import views_along
from transgrad.reference.storage import StorageRoot, empty_strides
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
    if a.base is not None:  # a view of a larger array: its own first element starts the storage
        a = np.asarray(StorageRoot(a)).view(a.dtype)  # (the interface spells bfloat16 |V2)
    if a.size == 0 and 0 in a.strides:  # torch's strides for a new empty tensor
        a = np.lib.stride_tricks.as_strided(a, a.shape, empty_strides(a.shape, a.strides,
                                                                      a.itemsize),
                                            writeable=bool(a.flags.writeable))
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
    # torch's internal-overlap check (an expanded or as_strided view)
    if a.size and any(st == 0 and n > 1 for n, st in zip(a.shape, a.strides)):
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation. (an expanded view: several "
                           "elements share memory)")
    np.copyto(a, src._data, casting="unsafe")
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
    inplace_verdict=VerdictTable(None), operators=dict,  # the Python operators as they are
    views_along=views_along)
