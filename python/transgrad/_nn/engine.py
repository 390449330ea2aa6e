"""What nn needs from an engine, in one place: ``Engine(module)`` adapts an engine module.

Input: an engine module with the PyTorch-style API (``transgrad`` or ``transgrad.reference``;
both export ``Tensor``, ``ops``, ``no_grad``, ``tensor``, ``rand``, the dtypes). Output: an
adapter exposing the handful of operations nn relies on beyond that API: calling a formula by
name, writing new values into a tensor in place, and drawing seeded random numbers.

How nn gets one: from a tensor, ``engine_of(t)`` (functional, init, utils, Module methods that
hold tensors); from nothing, ``engine_named(Module._engine)`` (a layer making its parameters:
Note [Which engine makes a layer's parameters] in module.py).

Invariant: the same calls on both engines: no feature tests, and no engine names except the
one a layer's binding class declares (the optimizers need none of this: they find the engine
from their parameters, transgrad/optim/optimizer.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from transgrad._backend import engine_module
from transgrad._dtypes import as_dtype

# Note [In-place updates]
# Initialisers, batch-norm running stats and load_state_dict change a Parameter's values without
# changing the Parameter object (an optimizer holds references to it): the engine's ``copy_``
# under no_grad, which bumps the version counter, so a graph that saved the old value refuses
# to run backward.


class Engine:
    """The engine module plus the capabilities nn uses (see the module docstring)."""

    def __init__(self, module: Any):
        self.module = module
        self.name = getattr(module, "__name__", type(module).__name__)
        self.Tensor = module.Tensor
        self.no_grad = module.no_grad
        self._ops = module.ops

    def __repr__(self) -> str:
        return f"Engine({self.name})"

    # -- formulas --------------------------------------------------------------------------

    def op(self, name: str) -> Callable[..., Any]:
        """The formula ``name`` (e.g. ``"cross_entropy"``) as a function of engine tensors."""
        fn = getattr(self._ops, name, None)
        if fn is None:
            fn = getattr(self.module, name, None)
        if fn is None:
            raise AttributeError(f"{self.name} has no op {name!r}: is formulas/nn.py built "
                                 f"into this engine?")
        return fn

    # -- tensors ---------------------------------------------------------------------------

    def dtype(self, dtype: Any) -> Any:
        """A dtype argument, None meaning the engine's default dtype."""
        return self.module.get_default_dtype() if dtype is None else as_dtype(dtype)

    def from_numpy(self, a: np.ndarray, dtype: Any = None) -> Any:
        return self.module.tensor(a, dtype=self.dtype(dtype))

    def numpy(self, t: Any) -> np.ndarray:
        return np.asarray(t.detach() if getattr(t, "requires_grad", False) else t)

    def assign_(self, t: Any, value: Any) -> Any:
        """Write ``value`` (a tensor or array of t's shape) into ``t`` in place; returns ``t``
        (Note [In-place updates])."""
        if not isinstance(value, self.Tensor):
            value = self.module.tensor(np.asarray(value), dtype=t.dtype)
        with self.no_grad():
            t.copy_(value)
        return t

    # -- randomness (the engine's default generator: torch's numbers for torch's seed) ---------

    def uniform(self, shape: Sequence[int], low: float, high: float, dtype: Any = None,
                generator: Any = None) -> Any:
        """A new tensor of U(low, high) draws, drawn as torch's ``uniform_``."""
        t = self.module.empty(*tuple(shape), dtype=self.dtype(dtype))
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


_BY_NAME: dict[str, Engine] = {}


def engine_named(name: str) -> Engine:
    """The adapter of the engine module ``name`` ("transgrad" or "transgrad.reference"),
    made once."""
    if name not in _BY_NAME:
        import importlib

        _BY_NAME[name] = Engine(importlib.import_module(name))
    return _BY_NAME[name]


def engine_of(tensor: Any) -> Engine:
    """The adapter of ``tensor``'s own engine: engine-neutral functions take their engine from
    their tensor arguments, as the optimizers do."""
    return engine_named(engine_module(tensor).__name__)
