"""``transgrad.reference.autograd``: grad, backward, grad mode, Function, gradcheck.

``gradcheck`` and ``gradgradcheck`` are engine-neutral (``transgrad/_api/gradcheck.py``, shared
with ``transgrad.autograd``).
"""

from __future__ import annotations

import contextlib
from typing import Iterator

from transgrad._api.gradcheck import gradcheck, gradgradcheck
from transgrad.reference.engine import backward, grad
from transgrad.reference.function import Function, FunctionCtx, once_differentiable
from transgrad.reference.grad_mode import (
    enable_grad,
    is_anomaly_enabled,
    is_grad_enabled,
    no_grad,
    set_anomaly_enabled,
    set_grad_enabled,
)

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad",
           "enable_grad", "set_grad_enabled", "is_grad_enabled", "detect_anomaly",
           "gradcheck", "gradgradcheck"]


@contextlib.contextmanager
def detect_anomaly(check_nan: bool = True) -> Iterator[None]:
    """While active, the engine checks every gradient for NaN and names the node that made it.
    (Errors raised in a backward always name the node and its formula's source line.)"""
    prev = is_anomaly_enabled()
    set_anomaly_enabled(check_nan)
    try:
        yield
    finally:
        set_anomaly_enabled(prev)

from . import functional  # noqa: E402,F401  (autograd.functional after import, as torch)
