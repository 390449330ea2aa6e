"""nn.utils, engine-neutral: gradient clipping (``clip_grad_norm_``, ``clip_grad_value_``).

Both change ``.grad`` of the given parameters in place, under no_grad, as torch.nn.utils does;
each takes the ``Engine`` adapter first (bound by ``build``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from .engine import Engine


def _grads(parameters: Any) -> list:
    if isinstance(parameters, Iterable) and not hasattr(parameters, "grad"):
        params = list(parameters)
    else:
        params = [parameters]
    return [p.grad for p in params if p.grad is not None]


def clip_grad_norm_(E: Engine, parameters: Any, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False) -> Any:
    """Scale the gradients so that their joint ``norm_type``-norm is at most ``max_norm``;
    returns the norm before clipping (a 0-d tensor)."""
    grads = _grads(parameters)
    m = E.module
    if not grads:
        return m.tensor(0.0)
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


def clip_grad_value_(E: Engine, parameters: Any, clip_value: float) -> None:
    """Clamp every gradient entry to ``[-clip_value, clip_value]``."""
    with E.no_grad():
        for g in _grads(parameters):
            E.assign_(g, g.clamp(-float(clip_value), float(clip_value)))


__all__ = ["clip_grad_norm_", "clip_grad_value_"]
