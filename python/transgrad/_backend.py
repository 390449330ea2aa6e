"""What an engine provides to the engine-neutral code (the API, nn, optim), and how that code
finds the engine of a tensor.

Input: each engine registers its ``Backend`` once, at import (``register``). Output:
``backend_of(tensor)``, the one way engine-neutral code finds a tensor's engine (as torch's
dispatcher keys on the tensor), and ``backend_named(name)`` for unpickling and for layers that
make their parameters from nothing (Note [Which engine makes a layer's parameters]).

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

import importlib
from collections.abc import Callable, Sequence
from typing import Any, Dict, Optional, Tuple

import numpy as np


class Backend:
    """One engine, as seen by the engine-neutral code: the few things the engines do
    differently (given by each engine when it registers), and the capabilities the API, nn and
    optim build on them, written once here."""

    def __init__(self, *, name: str, Tensor: type, ops: Any, autograd: Any, optim: Any,
                 from_numpy: Callable[[np.ndarray], Any],
                 wrapped_number: Callable[[np.ndarray], Any],
                 set_default_dtype: Callable[[Any], None],
                 inplace_: Callable[[Any, Any], None], set_history_: Callable[[Any, Any], None],
                 operators: Callable[[Dict[str, Any]], Dict[str, Any]],
                 inplace_verdict: Callable[[str], Any],
                 views_along: Callable[[Any, int, Sequence[int], str], Tuple[Any, ...]]):
        self.name = name
        """The engine's module name ("transgrad", "transgrad.reference")."""
        self.Tensor = Tensor
        """The tensor class. Natively: shape, ndim, dtype, requires_grad, grad, grad_fn,
        is_leaf, output_nr, backward, detach, requires_grad_, retain_grad, register_hook, item,
        numpy, __array__, _version, _bump_version (the rest is installed by ``transgrad._api``)."""
        self.ops = ops
        """Formula entry points by name (``ops.sum(x, dims, keepdim)``), looked up per call."""
        self.autograd = autograd
        """grad, backward, no_grad, enable_grad, set_grad_enabled, is_grad_enabled, Function..."""
        self.no_grad = autograd.no_grad
        self.optim = optim
        """The multi-tensor optimizer steps (``sgd_step_``, ``adam_step_``, ...;
        csrc/kernels/optim.h), which update lists of the engine's tensors in place:
        ``_C._optim`` or ``transgrad.reference.optim_kernels``."""
        self.from_numpy = from_numpy
        """Wrap a numpy array of a supported dtype without copying."""
        self.wrapped_number = wrapped_number
        """A 0-d array as torch's wrapped number: a tensor that promotes below 0-d tensors
        (Note [Type promotion] in _dtypes.py)."""
        self.set_default_dtype = set_default_dtype
        """Make a dtype the default of the engine's kernels (true division of integers,
        ``kernel.scalar_like`` of a float next to an integer tensor)."""
        self.inplace_ = inplace_
        """``inplace_(dst, src)``: write ``src`` into ``dst``'s storage, bump its version, take
        ``src``'s history."""
        self.set_history_ = set_history_
        """``set_history_(dst, src)``: give ``dst`` the history of ``src`` without copying."""
        self.operators = operators
        """The arithmetic operators to install on ``Tensor`` (``__add__``, ..., ``__neg__``),
        given their Python versions: those, or faster ones of the engine's own."""
        self.inplace_verdict = inplace_verdict
        """The in-place verdict of a formula (``allowed``, ``needs_copy``, ``reason``), or None
        when unknown (then: run on a copy)."""
        self.views_along = views_along
        """``views_along(x, dim, sizes, kind)``: x cut along ``dim`` (wrapped) into views of
        ``sizes``, recorded as one node named by ``kind`` ("unbind", "split",
        "split_with_sizes"), Note [Several views, one node] in csrc/autograd/multi_view.h."""
        self.default_dtype: Any = None
        """The engine's default dtype (kept by its ``Factories``): a Python float next to an
        integer tensor becomes a wrapped number of this dtype (Note [Type promotion])."""
        self._module: Any = None

    def __repr__(self) -> str:
        return f"Backend({self.name})"

    @property
    def module(self) -> Any:
        """The engine's public module (``transgrad`` or ``transgrad.reference``): its
        PyTorch-style functions, for engine-neutral code that makes tensors (``stack``,
        ``zeros``, ``randn``...)."""
        if self._module is None:
            self._module = importlib.import_module(self.name)
        return self._module

    # -- what nn and the initialisers build on ---------------------------------------------

    def op(self, name: str) -> Callable[..., Any]:
        """The formula ``name`` (e.g. ``"cross_entropy"``) as a function of engine tensors."""
        fn = getattr(self.ops, name, None)
        if fn is None:
            fn = getattr(self.module, name, None)
        if fn is None:
            raise AttributeError(f"{self.name} has no op {name!r}: is formulas/nn.py built "
                                 f"into this engine?")
        return fn

    def numpy(self, t: Any) -> np.ndarray:
        """``t``'s values as an array (detached first when it requires grad)."""
        return np.asarray(t.detach() if getattr(t, "requires_grad", False) else t)

    def assign_(self, t: Any, value: Any) -> Any:
        """Write ``value`` (a tensor or array of t's shape) into ``t`` in place; returns ``t``
        (Note [In-place updates])."""
        if not isinstance(value, self.Tensor):
            value = self.module.tensor(np.asarray(value), dtype=t.dtype)
        with self.no_grad():
            t.copy_(value)
        return t

    def uniform(self, shape: Sequence[int], low: float, high: float, dtype: Any = None,
                generator: Any = None) -> Any:
        """A new tensor of U(low, high) draws, drawn as torch's ``uniform_``."""
        t = self.module.empty(*tuple(shape), dtype=self.default_dtype if dtype is None else dtype)
        if t.numel() == 0:
            # nothing to draw (torch draws nothing either); the compiled engine refuses in-place
            # writes into empty tensors of two or more dims (zero strides read as overlap), which
            # lazy modules make as placeholders
            return t
        with self.no_grad():
            return t.uniform_(low, high, generator=generator)

    def bernoulli_mask(self, shape: Sequence[int], keep: float, dtype: Any) -> Any:
        """A tensor of 0/1 entries (1 with probability ``keep``) of ``dtype``, drawn as torch's
        dropout draws its mask (``bernoulli_(keep)``)."""
        t = self.module.empty(*tuple(shape), dtype=dtype)
        with self.no_grad():
            return t.bernoulli_(keep)


# Note [In-place updates]
# Initialisers, batch-norm running stats and load_state_dict change a Parameter's values without
# changing the Parameter object (an optimizer holds references to it): the engine's ``copy_``
# under no_grad, which bumps the version counter, so a graph that saved the old value refuses
# to run backward.


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


# The engine whose Tensor class is exactly ``cls``, or None: the bound ``get`` of the table
# (filled in place by ``register``), so a per-op path pays no Python frame and falls back to
# ``backend_of`` (a subclass such as Parameter, or its error) when it misses.
backend_of_type: Callable[[type], Optional[Backend]] = _BY_TENSOR_TYPE.get


def backend_of(tensor: Any) -> Backend:
    """The engine of ``tensor``; TypeError when it is no engine's tensor."""
    try:
        return _BY_TENSOR_TYPE[type(tensor)]  # per op: one dict lookup
    except KeyError:
        pass
    b = backend_of_class(type(tensor))
    if b is None:
        raise TypeError(f"expected a transgrad Tensor, got {type(tensor).__name__}")
    return b


def backend_of_class(cls: type) -> Optional[Backend]:
    """The engine whose Tensor class is ``cls`` or a base of it (``nn.Parameter``), None when
    there is none."""
    for base in cls.__mro__:
        b = _BY_TENSOR_TYPE.get(base)
        if b is not None:
            return b
    return None


def engine_module(tensor: Any) -> Any:
    """The public module of ``tensor``'s engine (``transgrad`` or ``transgrad.reference``), for
    engine-neutral code that needs the engine's functions (``stack``, ``randn``, ...)."""
    return backend_of(tensor).module


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
    importlib.import_module(name)
    for b in _BY_TENSOR_TYPE.values():
        if b.name == name:
            return b
    raise LookupError(f"no transgrad engine named {name!r}")
