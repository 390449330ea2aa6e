"""Grad mode: whether ops record history. Thread-local, on by default. Also anomaly mode
(process-wide, off by default): the engine then checks every gradient for NaN.

``no_grad``, ``enable_grad`` and ``set_grad_enabled`` work as context managers and (the first
two, and ``set_grad_enabled(False)``) as decorators, like PyTorch's.
"""

from __future__ import annotations

import threading

from transgrad._api.grad_mode import make_grad_modes

_state = threading.local()


def is_grad_enabled() -> bool:
    return getattr(_state, "enabled", True)


def _set(enabled: bool) -> None:
    _state.enabled = enabled


no_grad, enable_grad, set_grad_enabled = make_grad_modes(is_grad_enabled, _set)


_anomaly = [False]


def is_anomaly_enabled() -> bool:
    return _anomaly[0]


def set_anomaly_enabled(enabled: bool) -> None:
    _anomaly[0] = bool(enabled)
