"""Grad-mode context managers over an engine's own flag (both engines use these).

Input: the engine's ``is_enabled()`` / ``set_enabled(bool)`` pair (a Python thread-local in the
reference engine, the C++ thread-local in the compiled one). Output: ``no_grad``,
``enable_grad`` and ``set_grad_enabled``, usable as context managers and (the first two, and
``set_grad_enabled(False)``) as decorators, like PyTorch's.
"""

from __future__ import annotations

import functools
from typing import Any, Callable


def make_grad_modes(is_enabled: Callable[[], bool], set_enabled: Callable[[bool], None]):
    """``(no_grad, enable_grad, set_grad_enabled)`` bound to one engine's flag."""

    class _Mode:
        """Sets grad mode on enter and restores it on exit; also usable as a decorator."""

        _enabled = True

        def __enter__(self) -> None:
            self._prev = is_enabled()
            set_enabled(self._enabled)

        def __exit__(self, *exc: object) -> None:
            set_enabled(self._prev)

        def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
            enabled = self._enabled

            @functools.wraps(fn)
            def run(*args: Any, **kwargs: Any) -> Any:
                prev = is_enabled()
                set_enabled(enabled)
                try:
                    return fn(*args, **kwargs)
                finally:
                    set_enabled(prev)

            return run

    class no_grad(_Mode):
        """Disable recording: results of ops do not require grad."""

        _enabled = False

    class enable_grad(_Mode):
        """Enable recording (e.g. inside a ``no_grad`` block)."""

        _enabled = True

    class set_grad_enabled(_Mode):
        """``set_grad_enabled(mode)``: sets grad mode at once (as a function call) and restores
        the previous mode when used as a context manager."""

        def __init__(self, mode: bool) -> None:
            self._prev = is_enabled()
            self._enabled = bool(mode)
            set_enabled(self._enabled)

        def __enter__(self) -> None:
            set_enabled(self._enabled)

        def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
            set_enabled(self._prev)  # as a decorator, the constructor call must not change mode
            return super().__call__(fn)

    return no_grad, enable_grad, set_grad_enabled
