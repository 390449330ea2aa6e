"""``transgrad.reference.autograd``: grad, backward, grad mode, Function, gradcheck.

``gradcheck`` and ``gradgradcheck`` are installed here by ``transgrad._api.build`` (they are
engine-neutral and live in ``transgrad/_api/gradcheck.py``).
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from transgrad.reference.engine import backward, grad
from transgrad.reference.function import Function, FunctionCtx, once_differentiable
from transgrad.reference.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad",
           "enable_grad", "set_grad_enabled", "is_grad_enabled", "detect_anomaly",
           "gradcheck", "gradgradcheck"]


@contextlib.contextmanager
def detect_anomaly(check_nan: bool = True) -> Iterator[None]:
    """Accepted for PyTorch compatibility. Errors raised in a backward already name the node and
    the formula's source line, so there is nothing more to record."""
    yield


def gradcheck(*args: Any, **kwargs: Any) -> bool:  # replaced by _api.build
    raise RuntimeError("transgrad.reference was not fully imported")


gradgradcheck = gradcheck
