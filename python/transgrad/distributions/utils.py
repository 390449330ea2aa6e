"""Helpers shared by the distributions: the engine of a parameter, broadcasting of parameters,
probabilities <-> logits, and ``lazy_property``.

Stage: runtime, engine-neutral. Input: tensors of either engine (``transgrad`` or
``transgrad.reference``) and Python numbers. Output: tensors of that engine.

Invariant: every factory or random call of the package goes through the engine module that
``engine_of`` returns (Note [Which engine]).
"""

from __future__ import annotations

import functools
import importlib
import numbers
from typing import Any

from transgrad._backend import engine_module, is_tensor

# Note [Which engine]
# ~~~~~~~~~~~~~~~~~~~
# A distribution runs on the engine of its parameters: a Normal built from reference tensors
# samples with ``transgrad.reference.randn`` and its log_prob records reference nodes. Python
# numbers have no engine: they take the engine of the tensors they are broadcast with, and when
# every parameter is a number, the class's ``_default_engine`` (``"transgrad"``, the compiled
# engine; the classes of ``transgrad.reference.distributions`` override it with the reference
# engine). A tensor's engine is found by ``transgrad._backend``, as everywhere.

DEFAULT_ENGINE = "transgrad"


def engine_of(value: Any) -> Any:
    """The engine module (``transgrad`` or ``transgrad.reference``) that made tensor ``value``;
    TypeError for anything else."""
    return engine_module(value)


def broadcast_all(*values: Any, default_engine: str = DEFAULT_ENGINE) -> tuple[Any, ...]:
    """Broadcast tensors and Python numbers to one shape (as ``torch.distributions.utils``).

    Numbers become tensors of the engine and dtype of the first tensor among ``values``, or of
    ``default_engine``'s default dtype when there is none (Note [Which engine])."""
    tensors = [v for v in values if is_tensor(v)]
    for v in values:
        if not is_tensor(v) and not isinstance(v, numbers.Number):
            raise ValueError(
                "Input arguments must all be instances of numbers.Number, torch.Tensor or "
                f"objects implementing __torch_function__. (got {type(v).__name__})")
    if tensors:
        eng = engine_of(tensors[0])
        dtype = tensors[0].dtype
        for t in tensors[1:]:
            if engine_of(t) is not eng:
                raise TypeError("distribution parameters come from different engines: "
                                f"{eng.__name__} and {engine_of(t).__name__}")
    else:
        eng = importlib.import_module(default_engine)
        dtype = eng.get_default_dtype()
    as_tensors = [v if is_tensor(v) else eng.tensor(v, dtype=dtype) for v in values]
    shape = _broadcast_shape(*(tuple(t.shape) for t in as_tensors))
    return tuple(t if tuple(t.shape) == shape else t.expand(shape) for t in as_tensors)


def _broadcast_shape(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(ndim):
        sizes = {s[len(s) - ndim + i] for s in shapes if len(s) - ndim + i >= 0} - {1}
        if len(sizes) > 1:
            raise RuntimeError(f"shape mismatch: objects cannot be broadcast to a single shape: "
                               f"{' vs '.join(str(s) for s in shapes)}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


broadcast_shapes = _broadcast_shape


def as_engine_tensor(value: Any, like: Any) -> Any:
    """``value`` (a number or tensor) as a tensor of ``like``'s engine and dtype."""
    if is_tensor(value):
        return value
    return engine_of(like).tensor(value, dtype=like.dtype)


def sum_rightmost(value: Any, dim: int) -> Any:
    """Sum out the ``dim`` rightmost dimensions of ``value``."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.ndim - dim]) + (-1,)).sum(-1)


def sum_rightmost_all(value: Any, dim: int) -> Any:
    """``all`` over the ``dim`` rightmost dimensions of bool tensor ``value``."""
    return value.reshape(tuple(value.shape[:value.ndim - dim]) + (-1,)).all(-1)


def _eps(dtype: Any) -> float:
    import numpy as np

    return float(np.finfo(dtype).eps)


def clamp_probs(probs: Any) -> Any:
    """Probabilities clamped into [eps, 1 - eps] (eps of their dtype)."""
    eps = _eps(probs.dtype)
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits: Any, is_binary: bool = False) -> Any:
    if is_binary:
        return logits.sigmoid()
    return logits.softmax(-1)


def probs_to_logits(probs: Any, is_binary: bool = False) -> Any:
    ps = clamp_probs(probs)
    if is_binary:
        return ps.log() - (-ps).log1p()
    return ps.log()


def softplus(x: Any) -> Any:
    """log(1 + exp(x)), stable for large |x|, from differentiable methods of either engine."""
    return x.clamp(min=0) + (-x.abs()).exp().log1p()


def xlogy_zero(x: Any, y: Any) -> Any:
    """x * log(y), 0 where x == 0 (so 0 * log 0 is 0): the engine's ``xlogy``, whose gradient
    for x is log(y) even where x == 0, as torch's (the densities at concentration 1 need it)."""
    return special_op(engine_of(x), "xlogy")(x, y)


def special(name: str, x: Any) -> Any:
    """The engine's special function ``name`` (``lgamma``, ``digamma``, ``erfinv``) applied to
    ``x``. These ops come with the special-function formulas; until an engine has them, what
    needs them raises NotImplementedError naming the op."""
    fn = special_op(engine_of(x), name)
    if fn is None:
        raise NotImplementedError(
            f"this needs the {name} op, which {engine_of(x).__name__} does not have yet "
            "(it arrives with the special-function formulas)")
    return fn(x)


def special_op(engine: Any, name: str) -> Any:
    """The engine's function ``name`` (its public API first, else its formula ``ops``: a new
    formula is there before the API exports it), or None."""
    fn = getattr(engine, name, None)
    return fn if fn is not None else getattr(getattr(engine, "ops", None), name, None)


def format_value(value: Any) -> str:
    """A value as torch's f-strings show it: a 0-d tensor as its number, others as ``str``."""
    if is_tensor(value) and value.ndim == 0:
        return str(value.item())
    return str(value)


def shape_of(sample_shape: Any) -> tuple[int, ...]:
    if isinstance(sample_shape, numbers.Integral):
        return (int(sample_shape),)
    return tuple(int(s) for s in sample_shape)


class lazy_property:
    """A property computed once per instance, on first access (as torch's): the value replaces
    the descriptor in the instance's ``__dict__``. Used for the parameter not given (``probs``
    when built from ``logits``). It is computed with grad mode on, so a first access under
    ``no_grad`` (inside ``sample``) does not cache a value cut from the parameters' graph."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)  # type: ignore[arg-type]

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return self
        with instance._engine.enable_grad():
            value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value
        return value
