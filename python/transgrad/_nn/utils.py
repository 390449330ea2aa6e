"""nn.utils, engine-neutral: gradient clipping (``clip_grad_norm_``, ``clip_grad_value_``) and
parameters as one vector (``parameters_to_vector``, ``vector_to_parameters``).

The clipping functions change ``.grad`` in place, under no_grad, as torch.nn.utils does;
each finds its engine from the gradients (``backend_of``), so both engines share them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from transgrad._backend import backend_named, backend_of


def _params(parameters: Any) -> list:
    if isinstance(parameters, Iterable) and not hasattr(parameters, "grad"):
        return list(parameters)
    return [parameters]


def _grads(params: list) -> list:
    return [p.grad for p in params if p.grad is not None]


def _zero_norm(params: list) -> Any:
    """The norm of no gradients: 0.0 on the parameters' engine (the compiled one when there
    are no parameters either, as torch's default device)."""
    E = backend_of(params[0]) if params else backend_named("transgrad")
    return E.module.tensor(0.0)


def clip_grad_norm_(parameters: Any, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False) -> Any:
    """Scale the gradients so that their joint ``norm_type``-norm is at most ``max_norm``;
    returns the norm before clipping (a 0-d tensor)."""
    params = _params(parameters)
    grads = _grads(params)
    if not grads:
        return _zero_norm(params)
    E = backend_of(grads[0])
    m = E.module
    norm_type = float(norm_type)
    with E.no_grad():
        if math.isinf(norm_type):
            total = m.stack([g.abs().amax() for g in grads]).amax()
        else:
            total = m.stack([(g.abs() ** norm_type).sum() for g in grads]).sum() ** (
                1.0 / norm_type)
        value = total.item()
        if error_if_nonfinite and not math.isfinite(value):
            raise RuntimeError(f"the total norm of order {norm_type} of the gradients is "
                               f"{value}: cannot clip them (error_if_nonfinite=True)")
        coef = min(1.0, max_norm / (value + 1e-6))
        if coef < 1.0:
            for g in grads:
                E.assign_(g, g * coef)
    return total


def clip_grad_value_(parameters: Any, clip_value: float) -> None:
    """Clamp every gradient entry to ``[-clip_value, clip_value]``."""
    for g in _grads(_params(parameters)):
        E = backend_of(g)
        with E.no_grad():
            E.assign_(g, g.clamp(-float(clip_value), float(clip_value)))


def parameters_to_vector(parameters: Any) -> Any:
    """The parameters flattened and concatenated into one 1-d tensor (differentiable)."""
    params = list(parameters)
    if not params:
        raise ValueError("parameters_to_vector: no parameters given")
    m = backend_of(params[0]).module
    return m.cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec: Any, parameters: Any) -> None:
    """Copy consecutive slices of the 1-d ``vec`` into the parameters, in place."""
    if not hasattr(vec, "shape"):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    params = list(parameters)
    total = sum(p.numel() for p in params)
    if vec.ndim != 1 or vec.shape[0] != total:
        raise ValueError(f"vector_to_parameters: a 1-d vector of {total} elements expected, "
                         f"got shape {tuple(vec.shape)}")
    start = 0
    for p in params:
        n = p.numel()
        E = backend_of(p)
        E.assign_(p, vec.detach()[start:start + n].reshape(tuple(p.shape)))
        start += n


__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]
