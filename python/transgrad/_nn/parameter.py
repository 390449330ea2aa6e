"""What every engine's ``Parameter`` shares: its printed form, ``copy.deepcopy`` and how the
reference engine's one is made from a tensor.

Input: a tensor of one engine. Output: ``transgrad.nn.parameter.Parameter`` (a subclass of the
compiled Tensor) and ``transgrad.reference.nn.parameter.Parameter`` (of the reference Tensor)
are both ``ParameterMixin`` subclasses; invariant: a Parameter is a leaf that requires grad
(unless asked otherwise) and shares data and version counter with the tensor it was made from.
"""

from __future__ import annotations

from typing import Any

from transgrad._backend import backend_of

# Note [Parameter construction]
# A Parameter must be an instance of the engine's Tensor class (so every op accepts it) that
# shares storage and version counter with its source, without history. The compiled Tensor
# (pybind11) is torch's legacy constructor, whose ``Tensor(detached_tensor)`` is exactly that
# alias, which a Python subclass calls from ``__init__``. The reference Tensor is a plain class with
# ``__slots__``: the subclass instance takes over the detached source's slots
# (``take_over_slots``).


class ParameterMixin:
    """The engine-neutral part of ``Parameter`` (listed first in its bases, before the engine's
    Tensor, whose ``detach``/``requires_grad`` these methods use)."""

    detach: Any
    requires_grad: bool

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __str__(self) -> str:  # print(param): the Tensor class sets __str__, torch's is repr
        return self.__repr__()

    def __deepcopy__(self, memo: dict) -> Any:  # copy.deepcopy(model): fresh data, as torch
        if id(self) not in memo:
            with backend_of(self).no_grad():
                cls: Any = type(self)  # the engine's Parameter (mixin + Tensor): takes data
                memo[id(self)] = cls(self.detach().clone(), self.requires_grad)
        return memo[id(self)]

    def __reduce_ex__(self, protocol: Any) -> Any:  # pickle keeps the Parameter type, as torch
        return type(self), (self.detach(), self.requires_grad)


def take_over_slots(cls: type, src: Any, requires_grad: bool) -> Any:
    """A new ``cls`` instance holding ``src``'s slots (a plain Python Tensor class: Note
    [Parameter construction])."""
    src = src.detach()
    obj: Any = object.__new__(cls)
    for klass in type(src).__mro__:
        for slot in getattr(klass, "__slots__", ()):
            if slot not in ("__weakref__", "__dict__") and hasattr(src, slot):
                object.__setattr__(obj, slot, getattr(src, slot))
    if getattr(src, "__dict__", None):
        obj.__dict__.update(src.__dict__)
    obj.requires_grad_(requires_grad)
    return obj


class UninitializedTensorMixin:
    """What ``UninitializedParameter`` adds to an engine's Parameter (torch.nn.parameter's
    mixin of the same name): no data until ``materialize(shape)``, which gives it storage and
    turns it into a plain Parameter in place (the same object, so the module keeps it). Its
    ``shape`` and ``share_memory_`` raise torch's errors; the lazy modules
    (``_nn/modules/lazy.py``) materialise it on their first call."""

    cls_to_become: type
    data: Any
    dtype: Any
    requires_grad: bool

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        from transgrad._device import check_device

        check_device(device)
        E = backend_of(self)
        shape = (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)
        self.data = E.module.empty(shape, dtype=self.dtype if dtype is None else dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self) -> Any:
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into "
            "an initialized one. Call `forward` to initialize the parameters before accessing "
            "their attributes.")

    def share_memory_(self) -> Any:
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call "
                           "`forward` to initialize the parameters before calling "
                           "`module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __str__(self) -> str:
        return self.__repr__()

    def __deepcopy__(self, memo: dict) -> Any:
        if id(self) not in memo:
            cls: Any = type(self)
            memo[id(self)] = cls(self.requires_grad, None, self.dtype)
        return memo[id(self)]

    def __reduce_ex__(self, protocol: Any) -> Any:
        return type(self), (self.requires_grad, None, self.dtype)


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is an ``UninitializedParameter`` (of either engine)."""
    return isinstance(param, UninitializedTensorMixin)
