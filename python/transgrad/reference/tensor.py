"""The reference engine's Tensor: a numpy array plus autograd metadata.

Input: a numpy array (never copied). Output: a Tensor whose methods beyond the autograd core
(``exp``, ``sum``, operators, indexing, ...) are installed by ``transgrad._api``, exactly as on
the compiled engine's Tensor.

Invariants:
* ``_data`` is a numpy array of a supported dtype (bool, int64, float32, float64, complex128).
* One ``VersionCounter`` per storage: a view made by a view kernel (``Tensor._view_of``) or by
  ``detach`` shares its base's counter, so an in-place change through any alias is seen by every
  saved tensor of that storage (Note [Version counters]).
* A tensor is a leaf iff ``grad_fn is None``; it requires grad iff it is a leaf marked so, or it
  has a ``grad_fn``.

Note [Version counters]
~~~~~~~~~~~~~~~~~~~~~~~
Saved tensors remember the counter's value when saved and compare it when unpacked: a mismatch
means the storage changed in place, and the backward would compute with the wrong values.
Kernels create tensors with ``_from_array`` (fresh storage, new counter) or ``_view_of(base, a)``
(same storage as ``base``, same counter). Writing through ``numpy()`` bypasses the counter: do
such writes under ``no_grad`` on tensors no graph has saved, or call ``_bump_version``.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, List, Optional

import numpy as np

from transgrad._backend import backend_of
from transgrad._dtypes import SUPPORTED, is_floating_or_complex, of_array
from transgrad._size import Size
from transgrad._size import size_of as _size_of
from transgrad.reference.storage import empty_strides, storage_offset_of

SUPPORTED_DTYPES = frozenset(d.dtype for d in SUPPORTED)  # numpy's: compared at C speed
_object_new = object.__new__
FLOATING_KINDS = "fc"
# torch's words for .numpy() on a tensor that requires grad (csrc/python/tensor_binding.cpp too).
NUMPY_REQUIRES_GRAD = ("Can't call numpy() on Tensor that requires grad. "
                       "Use tensor.detach().numpy() instead.")
NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead.")


class VersionCounter:
    """How many times a storage was modified in place (shared by all views of it)."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


class HookHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook."""

    def __init__(self, hooks: List[Callable[..., Any]], hook: Callable[..., Any]) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


class Tensor:
    """A reference-engine tensor. Construct with ``transgrad.reference.tensor(...)``,
    ``from_numpy`` or torch's legacy ``Tensor(...)``; the engine's own code wraps an array
    without copying with ``Tensor._from_array(a)`` (fresh version counter)."""

    __slots__ = ("_data", "_vc", "_base", "_requires_grad", "grad_fn", "output_nr", "_grad",
                 "_retains_grad", "_hooks", "_grad_acc", "_post_acc_hooks", "_wrapped",
                 "__weakref__")

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        """torch's legacy constructor (Note [The legacy constructor] in _api/legacy.py):
        ``Tensor(2, 3)``, ``Tensor(size)``, ``Tensor([1, 2])`` (float32), ``Tensor(array)``,
        ``Tensor(other)``, ``Tensor()``."""
        from transgrad._api.legacy import legacy_new
        from transgrad.reference import _factories

        t = legacy_new(_factories, None, args, kwargs)
        if cls is Tensor:
            return t
        from transgrad._nn.parameter import take_over_slots

        return take_over_slots(cls, t, t.requires_grad)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass  # all done by __new__

    def _init(self, data: np.ndarray) -> None:
        if data.dtype not in SUPPORTED_DTYPES:
            raise TypeError(f"unsupported dtype {data.dtype}: transgrad tensors are "
                            + ", ".join(d.name for d in SUPPORTED))
        self._data = data
        self._wrapped = False  # a wrapped number (Note [Type promotion] in transgrad/_dtypes.py)
        self._vc = VersionCounter()
        self._base: Optional[Tensor] = None  # the tensor this one is a view of
        self._requires_grad = False
        self.grad_fn: Any = None
        self.output_nr = 0
        self._grad: Optional[Tensor] = None
        self._retains_grad = False
        self._hooks: Optional[List[Callable[..., Any]]] = None  # leaf hooks (non-leaf: on grad_fn)
        self._grad_acc: Any = None  # weakref to this leaf's AccumulateGrad node
        self._post_acc_hooks: Optional[List[Callable[..., Any]]] = None  # hook(self) after .grad

    # -- construction used by kernels ------------------------------------------------------

    @classmethod
    def _from_array(cls, a: Any, requires_grad: bool = False) -> "Tensor":
        """A tensor owning fresh storage ``a`` (a numpy array, never copied)."""
        t = _object_new(cls)
        t._init(a if type(a) is np.ndarray else np.asarray(a))
        if requires_grad:
            t.requires_grad = True
        return t

    @classmethod
    def _view_of(cls, base: "Tensor", a: np.ndarray) -> "Tensor":
        """A tensor over ``a``, a numpy view of ``base``'s storage: shares the version counter."""
        t = cls._from_array(a)
        t._vc = base._vc
        t._base = base._base if base._base is not None else base
        return t

    def _set_data(self, other: "Tensor") -> None:
        """``x.data = other``: this tensor object now holds ``other``'s storage (shape and dtype
        included) and keeps its own identity, autograd state and version counter, as torch's
        ``set_data``; checked by the API (``methods._set_data``)."""
        self._data = other._data
        self._base = None

    # -- metadata --------------------------------------------------------------------------

    @property
    def shape(self) -> Size:
        return _size_of(self._data.shape)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def dtype(self) -> Any:
        """The ``transgrad.dtype`` of the elements (Note [dtype objects and numpy])."""
        return of_array(self._data)

    def stride(self, dim: Optional[int] = None) -> Any:
        """Strides in elements, as torch's (numpy's are in bytes)."""
        a = self._data
        strides = tuple(s // a.itemsize for s in a.strides)
        if a.size == 0 and 0 in strides:  # numpy gives a new empty array zero strides
            strides = empty_strides(a.shape, strides, 1)
        return strides if dim is None else strides[dim]

    def is_contiguous(self, memory_format: Any = None) -> bool:
        """Row-major contiguous, as torch's default memory format (a dim of size 1 or a tensor
        without elements does not break it)."""
        return bool(self._data.flags.c_contiguous)

    def _storage_offset(self) -> int:
        """Elements from the start of the storage to the first element (reference/storage.py)."""
        return storage_offset_of(self._data)

    def _is_contiguous(self) -> bool:
        """Row-major contiguous (the fast path of _api/memory_formats.py's is_contiguous)."""
        return bool(self._data.flags.c_contiguous)

    @property
    def _version(self) -> int:
        return self._vc.value

    def _bump_version(self) -> None:
        self._vc.value += 1

    @property
    def _is_view(self) -> bool:
        return self._base is not None

    def _shares_storage(self, other: "Tensor") -> bool:
        return self._vc is other._vc

    # -- autograd state --------------------------------------------------------------------

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad or self.grad_fn is not None

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self.grad_fn is not None:
            if value:
                return
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if value and not is_floating_or_complex(self._data.dtype):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               f"gradients (got {self._data.dtype})")
        self._requires_grad = bool(value)

    @requires_grad.deleter
    def requires_grad(self) -> None:
        raise RuntimeError("requires_grad must be a bool")  # torch's words for the deletion

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def grad(self) -> Optional["Tensor"]:
        if self._grad is None and self.grad_fn is not None and not self._retains_grad:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Optional["Tensor"]) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad must be a Tensor or None, got {type(value)}")
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value.dtype != self.dtype:
                raise RuntimeError(f"assigned grad has data of a different type: grad dtype "
                                   f"{value.dtype}, tensor dtype {self.dtype}")
            if value.shape != self.shape:
                raise RuntimeError(f"assigned grad has data of a different size: grad shape "
                                   f"{value.shape}, tensor shape {self.shape}")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None  # ``del x.grad``, as torch

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def data_ptr(self) -> int:
        """The address of the first element (0 for an empty tensor), as torch's."""
        return int(self._data.__array_interface__["data"][0]) if self._data.size else 0

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf tensor after backward (leaves always do)."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        self._retains_grad = True
        self.grad_fn._retain(self.output_nr, self)

    def register_hook(self, hook: Callable[[Any], Any]) -> HookHandle:
        """``hook(grad)`` runs when this tensor's gradient is computed; a non-None return value
        replaces the gradient."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = []
            hooks = self._hooks
        else:
            hooks = self.grad_fn._hooks_for(self.output_nr, create=True)
        hooks.append(hook)
        return HookHandle(hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Any], Any]) -> HookHandle:
        """``hook(self)`` runs after backward accumulated into this leaf's ``.grad``."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        if self._post_acc_hooks is None:
            self._post_acc_hooks = []
        self._post_acc_hooks.append(hook)
        return HookHandle(self._post_acc_hooks, hook)

    def detach(self) -> "Tensor":
        """A tensor sharing storage (and version counter) with this one, without history."""
        return Tensor._view_of(self, self._data)

    def _detach_inplace(self) -> "Tensor":
        """The engine half of ``x.detach_()`` (the API checks views first, methods.py)."""
        self.grad_fn = None
        self._requires_grad = False
        return self

    def backward(self, gradient: Any = None, retain_graph: Optional[bool] = None,
                 create_graph: bool = False, inputs: Any = None) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad`` (see ``autograd.backward``)."""
        backend_of(self).autograd.backward(
            [self], None if gradient is None else [gradient], retain_graph, create_graph, inputs)

    # -- data ------------------------------------------------------------------------------

    def item(self) -> Any:
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._data.item()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The underlying numpy array (zero-copy). As torch, refused on a tensor that requires
        grad (a write through the array would bypass autograd), unless ``force``."""
        if self.requires_grad and not force:
            raise RuntimeError(NUMPY_REQUIRES_GRAD)
        return self._data

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if dtype is not None and np.dtype(dtype) != self._data.dtype:
            return self._data.astype(dtype)
        if copy:
            return self._data.copy()
        return self._data
