"""What nn and optim need from an engine, in one place: ``Engine(module)`` adapts an engine.

Input: an engine module with the PyTorch-style API (``transgrad``, ``transgrad.reference``, or
any module with the same surface). Output: an adapter exposing the handful of operations nn
and optim rely on beyond that API: calling a formula by name, making a Parameter that keeps
its identity, writing new values into a tensor in place, and drawing seeded random numbers.

Invariant: every capability is looked up once, by feature (``hasattr``), never by engine
name, so the compiled and the reference engine run the same nn code; a missing capability
falls back to something correct (Note [In-place updates]).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

# Note [In-place updates]
# Optimizers, initialisers and load_state_dict change a Parameter's values without changing
# the Parameter object (the optimizer holds references to it). Preferred: the engine's
# ``copy_`` under no_grad (bumps the version counter, so a graph that saved the old value
# refuses to run backward). Fallback: write through the zero-copy numpy view
# (``np.asarray(t)``), which both engines promise; the version counter is bumped when the
# engine offers a way (``_bump_version``).


class Engine:
    """The engine module plus the capabilities nn/optim use (see the module docstring)."""

    def __init__(self, module: Any):
        self.module = module
        self.name = getattr(module, "__name__", type(module).__name__)
        self.Tensor = module.Tensor
        self.no_grad = module.no_grad
        self._ops = _find_ops(module)
        self._copy = hasattr(module.Tensor, "copy_")
        self._bump = getattr(module.Tensor, "_bump_version", None)

    def __repr__(self) -> str:
        return f"Engine({self.name})"

    # -- formulas --------------------------------------------------------------------------

    def op(self, name: str) -> Callable[..., Any]:
        """The formula ``name`` (e.g. ``"cross_entropy"``) as a function of engine tensors."""
        fn = getattr(self._ops, name, None) if self._ops is not None else None
        if fn is None:
            fn = getattr(self.module, name, None)
        if fn is None:
            raise AttributeError(f"{self.name} has no op {name!r}: is formulas/nn.py built "
                                 f"into this engine?")
        return fn

    # -- tensors ---------------------------------------------------------------------------

    def dtype(self, dtype: Any) -> Any:
        if dtype is None:
            return getattr(self.module, "get_default_dtype", lambda: self.module.float32)()
        if isinstance(dtype, str):
            return getattr(self.module, dtype)
        return dtype

    def from_numpy(self, a: np.ndarray, dtype: Any = None) -> Any:
        return self.module.tensor(a, dtype=self.dtype(dtype))

    def numpy(self, t: Any) -> np.ndarray:
        return np.asarray(t.detach() if getattr(t, "requires_grad", False) else t)

    def assign_(self, t: Any, value: Any) -> Any:
        """Write ``value`` (a tensor or array of t's shape) into ``t`` in place; returns ``t``."""
        if self._copy:
            if not isinstance(value, self.Tensor):
                value = self.module.tensor(np.asarray(value), dtype=t.dtype)
            with self.no_grad():
                t.copy_(value)
            return t
        src = np.asarray(value.detach() if isinstance(value, self.Tensor) else value)
        dst = np.asarray(t.detach())
        if dst.shape != src.shape:
            raise ValueError(f"cannot write a tensor of shape {src.shape} into one of shape "
                             f"{dst.shape}")
        if not dst.flags.writeable:
            raise RuntimeError(f"{self.name}: numpy view of a tensor is read-only and the "
                               f"engine has no Tensor.copy_; cannot update in place")
        dst[...] = src
        if self._bump is not None:
            self._bump(t)
        return t

    # -- randomness (seeded by the engine's manual_seed) -----------------------------------

    def uniform(self, shape: Sequence[int], low: float, high: float, dtype: Any = None) -> Any:
        m = self.module
        shape = tuple(shape)
        dtype = self.dtype(dtype)
        if hasattr(m, "rand"):
            u = m.rand(*shape, dtype=dtype)
        else:  # from normal draws, so that manual_seed still governs it: u = Phi(z)
            z = np.asarray(m.randn(*shape, dtype=m.float64))
            u = m.tensor(0.5 * (1.0 + _erf(z / math.sqrt(2.0))), dtype=dtype)
        with self.no_grad():
            return u * (high - low) + low

    def bernoulli_mask(self, shape: Sequence[int], keep: float, dtype: Any) -> Any:
        """A tensor of 0/1 entries (1 with probability ``keep``) of ``dtype``."""
        u = self.uniform(shape, 0.0, 1.0, self.module.float64)
        mask = np.asarray(u) < keep
        return self.module.tensor(mask.astype(np.float64), dtype=dtype)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _find_ops(module: Any) -> Any | None:
    """The engine's namespace of formulas by name (``engine.ops``, else ``_C.ops``)."""
    ops = getattr(module, "ops", None)
    if ops is not None and not callable(ops):
        return ops
    c = getattr(module, "_C", None)
    if c is not None and hasattr(c, "ops"):
        return c.ops
    if getattr(module, "__name__", "").startswith("transgrad.reference"):
        from transgrad.lang import ops as lang_ops

        return lang_ops
    return None
