"""What an engine provides to the engine-neutral code (the API, nn, optim), and how that code
finds the engine of a tensor.

Input: each engine registers its ``Backend`` once, at import (``register``). Output:
``backend_of(tensor)``, the one way engine-neutral code finds a tensor's engine (as torch's
dispatcher keys on the tensor), and ``backend_named(name)`` for unpickling.

Invariant: this module imports no engine; engines import it.

Note [One API, two engines]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
``transgrad`` (compiled, ``_compiled.py``) and ``transgrad.reference`` (pure Python) differ in
the few things listed by ``Backend`` below; everything else (the PyTorch-style functions,
Tensor methods, nn, optim) is written once against that protocol. Code that receives a tensor
asks ``backend_of(t)``; code that creates tensors from nothing (factories, module constructors)
uses the backend of the namespace it was reached through. The attribute names are exact: the
compiled backend is a namespace over ``transgrad._C``, the reference one over its modules.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Protocol, Tuple

import numpy as np


class Backend(Protocol):
    """One engine, as seen by the engine-neutral code."""

    name: str
    """The engine's module name ("transgrad", "transgrad.reference")."""
    Tensor: type
    """The tensor class. Natively: shape, ndim, dtype, requires_grad, grad, grad_fn, is_leaf,
    output_nr, backward, detach, requires_grad_, retain_grad, register_hook, item, numpy,
    __array__, _version, _bump_version (the rest is installed by ``transgrad._api``)."""
    ops: Any
    """Formula entry points by name (``ops.sum(x, dims, keepdim)``), looked up per call."""
    autograd: Any
    """grad, backward, no_grad, enable_grad, set_grad_enabled, is_grad_enabled, Function, ..."""
    optim: Any
    """The multi-tensor optimizer steps (``sgd_step_``, ``adam_step_``, ``rmsprop_step_``,
    ``adagrad_step_``; csrc/kernels/optim.h), which update lists of the engine's tensors in
    place: ``_C._optim`` or ``transgrad.reference.optim_kernels``."""

    default_dtype: Any
    """The engine's default dtype (kept by its ``Factories``): a Python float next to an integer
    tensor becomes a wrapped number of this dtype (Note [Type promotion] in _dtypes.py)."""

    def from_numpy(self, a: np.ndarray) -> Any:
        """Wrap a numpy array of a supported dtype without copying."""

    def wrapped_number(self, a: np.ndarray) -> Any:
        """A 0-d array as torch's wrapped number: a tensor that promotes below 0-d tensors
        (Note [Type promotion] in _dtypes.py)."""

    def set_default_dtype(self, dtype: Any) -> None:
        """Make ``dtype`` the default dtype of the engine's kernels (true division of integers,
        ``kernel.scalar_like`` of a float next to an integer tensor)."""

    def inplace_(self, dst: Any, src: Any) -> None:
        """Write ``src`` into ``dst``'s storage, bump its version, take ``src``'s history."""

    def set_history_(self, dst: Any, src: Any) -> None:
        """Give ``dst`` the history of ``src`` without copying data."""

    def operators(self, python: Dict[str, Any]) -> Dict[str, Any]:
        """The arithmetic operators to install on ``Tensor`` (``__add__``, ``__radd__``, ...,
        ``__neg__``), given their Python versions: those, or faster ones of the engine's own."""

    def inplace_verdict(self, formula: str) -> Any:
        """The in-place verdict of a formula (``translator.inplace.InplaceVerdict``-like:
        ``allowed``, ``needs_copy``, ``reason``), or None when unknown (then: run on a copy)."""


_BY_TENSOR_TYPE: Dict[type, Backend] = {}
_TENSOR_TYPES: Tuple[type, ...] = ()


def register(backend: Backend) -> None:
    """Make ``backend`` the engine of every tensor of class ``backend.Tensor`` (and subclasses)."""
    global _TENSOR_TYPES
    _BY_TENSOR_TYPE[backend.Tensor] = backend
    _TENSOR_TYPES = tuple(_BY_TENSOR_TYPE)


def is_tensor(value: Any) -> bool:
    """Whether ``value`` is a tensor of some engine (a Parameter included)."""
    return isinstance(value, _TENSOR_TYPES)


def backend_of(tensor: Any) -> Backend:
    """The engine of ``tensor``; TypeError when it is no engine's tensor."""
    try:
        return _BY_TENSOR_TYPE[type(tensor)]  # per op: one dict lookup
    except KeyError:
        pass
    for cls in type(tensor).__mro__[1:]:  # a subclass (Parameter)
        b = _BY_TENSOR_TYPE.get(cls)
        if b is not None:
            return b
    raise TypeError(f"expected a transgrad Tensor, got {type(tensor).__name__}")


def engine_module(tensor: Any) -> Any:
    """The public module of ``tensor``'s engine (``transgrad`` or ``transgrad.reference``), for
    engine-neutral code that needs the engine's functions (``stack``, ``randn``, ...)."""
    import importlib

    return importlib.import_module(backend_of(tensor).name)


def find_backend(values: Any) -> Optional[Backend]:
    """The engine of the first tensor among ``values`` (None when there is none)."""
    for v in values:
        try:
            return backend_of(v)
        except TypeError:
            continue
    return None


def backend_named(name: str) -> Backend:
    """The registered engine whose module is ``name`` (imported first if needed)."""
    import importlib

    importlib.import_module(name)
    for b in _BY_TENSOR_TYPE.values():
        if b.name == name:
            return b
    raise LookupError(f"no transgrad engine named {name!r}")
