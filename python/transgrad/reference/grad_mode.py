"""Grad mode: whether ops record history. Thread-local, on by default. Also anomaly mode
(process-wide, off by default): the engine then checks every gradient for NaN.

``no_grad``, ``enable_grad`` and ``set_grad_enabled`` work as context managers and (the first
two, and ``set_grad_enabled(False)``) as decorators, like PyTorch's.
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable

_state = threading.local()


def is_grad_enabled() -> bool:
    return getattr(_state, "enabled", True)


def _set(enabled: bool) -> None:
    _state.enabled = enabled


class _Mode:
    """A context manager that sets grad mode on enter and restores it on exit."""

    _enabled = True

    def __enter__(self) -> None:
        self._prev = is_grad_enabled()
        _set(self._enabled)

    def __exit__(self, *exc: Any) -> None:
        _set(self._prev)

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        enabled = self._enabled

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            prev = is_grad_enabled()
            _set(enabled)
            try:
                return fn(*args, **kwargs)
            finally:
                _set(prev)

        return run


class no_grad(_Mode):
    """Disable recording: results of ops do not require grad."""

    _enabled = False


class enable_grad(_Mode):
    """Enable recording (e.g. inside a ``no_grad`` block)."""

    _enabled = True


class set_grad_enabled(_Mode):
    """``set_grad_enabled(mode)``: sets grad mode at once (as a function call) and restores the
    previous mode when used as a context manager."""

    def __init__(self, mode: bool) -> None:
        self._prev = is_grad_enabled()
        self._enabled = bool(mode)
        _set(self._enabled)

    def __enter__(self) -> None:
        _set(self._enabled)

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        _set(self._prev)  # as a decorator, the constructor call must not change the mode
        return super().__call__(fn)


_anomaly = [False]


def is_anomaly_enabled() -> bool:
    return _anomaly[0]


def set_anomaly_enabled(enabled: bool) -> None:
    _anomaly[0] = bool(enabled)
