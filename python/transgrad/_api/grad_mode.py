"""Grad-mode context managers over an engine's own flag (both engines use these).

Input: the engine's ``is_enabled()`` / ``set_enabled(bool)`` pair (a Python thread-local in the
reference engine, the C++ thread-local in the compiled one). Output: ``no_grad``,
``enable_grad`` and ``set_grad_enabled``, usable as context managers and as decorators, like
PyTorch's: ``@no_grad()``, ``@no_grad`` and ``no_grad(fn)`` all decorate; ``set_grad_enabled(m)``
sets the mode at once when called, restores the previous one on leaving a ``with`` block, and
decorates without changing the mode at decoration time.

Note [Grad mode on generators]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A decorated generator function returns its generator at once; its body runs later, on every
``next``/``send``/``throw``, possibly after the caller has left any mode. So the decorator
wraps the generator and sets the mode around each resume only (restoring the caller's mode
while the generator is suspended), as torch does: code between two ``yield`` statements always
runs under the decorated mode, and the caller's code between two ``next`` calls never does.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
import warnings
from typing import Any, Callable, Generator, Iterator


def make_grad_modes(is_enabled: Callable[[], bool], set_enabled: Callable[[bool], None]):
    """``(no_grad, enable_grad, set_grad_enabled)`` bound to one engine's flag."""

    @contextlib.contextmanager
    def mode(enabled: bool) -> Iterator[None]:
        prev = is_enabled()
        set_enabled(enabled)
        try:
            yield
        finally:
            set_enabled(prev)

    def resume_under(enabled: bool, gen: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
        """Drive ``gen``, each resume under ``enabled`` (Note [Grad mode on generators])."""
        try:
            with mode(enabled):
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with mode(enabled):
                        gen.close()
                    raise
                except BaseException as e:  # thrown in by the caller: pass it on
                    with mode(enabled):
                        response = gen.throw(e)
                else:
                    with mode(enabled):
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value

    def decorate(enabled: bool, fn: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(fn):
            raise TypeError(f"a grad mode decorates a function, got {type(fn).__name__}")
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def run_generator(*args: Any, **kwargs: Any) -> Any:
                return resume_under(enabled, fn(*args, **kwargs))

            return run_generator

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with mode(enabled):
                return fn(*args, **kwargs)

        return run

    class _Mode:
        """Sets grad mode on enter and restores it on exit; also a decorator, with or without
        parentheses (``@no_grad``, ``@no_grad()``, ``no_grad(fn)``)."""

        _enabled = True

        def __new__(cls, orig_func: Any = None) -> Any:
            if orig_func is None:
                return super().__new__(cls)
            return decorate(cls._enabled, orig_func)

        def __enter__(self) -> None:
            self._prev = is_enabled()
            set_enabled(self._enabled)

        def __exit__(self, *exc: object) -> None:
            set_enabled(self._prev)

        def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
            return decorate(self._enabled, fn)

        def clone(self) -> "_Mode":
            return type(self)()

    class no_grad(_Mode):
        """Disable recording: results of ops do not require grad."""

        _enabled = False

    class enable_grad(_Mode):
        """Enable recording (e.g. inside a ``no_grad`` block)."""

        _enabled = True

    class set_grad_enabled:
        """``set_grad_enabled(mode)``: sets grad mode at once (as a function call), restores the
        previous mode when a ``with`` block ends, and as a decorator runs the function under
        ``mode`` without changing the mode at decoration."""

        def __init__(self, mode: bool) -> None:
            self._prev = is_enabled()
            self._enabled = bool(mode)
            set_enabled(self._enabled)

        def __enter__(self) -> None:
            set_enabled(self._enabled)

        def __exit__(self, *exc: object) -> None:
            set_enabled(self._prev)

        def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
            set_enabled(self._prev)  # as a decorator, the constructor call must not change mode
            return decorate(self._enabled, fn)

        def clone(self) -> "set_grad_enabled":
            return type(self)(self._enabled)

    return no_grad, enable_grad, set_grad_enabled


def make_anomaly_modes(is_enabled: Callable[[], bool], set_enabled: Callable[[bool], None]):
    """``(detect_anomaly, set_detect_anomaly)`` bound to one engine's anomaly flag (the flag
    turns on the NaN check of every gradient; a backward error always names its node)."""

    @contextlib.contextmanager
    def detect_anomaly(check_nan: bool = True) -> Iterator[None]:
        """While active, the engine checks every gradient for NaN and names the node that made
        it (a context manager and, as torch's, a decorator)."""
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=3)
        prev = is_enabled()
        set_enabled(bool(check_nan))
        try:
            yield
        finally:
            set_enabled(prev)

    class set_detect_anomaly:
        """``set_detect_anomaly(mode, check_nan=True)``: sets anomaly mode at once (scripts call
        it as a function), and restores the previous mode when a ``with`` block ends."""

        def __init__(self, mode: bool, check_nan: bool = True) -> None:
            self._prev = is_enabled()
            set_enabled(bool(mode) and bool(check_nan))

        def __enter__(self) -> None:
            return None

        def __exit__(self, *exc: object) -> None:
            set_enabled(self._prev)

    return detect_anomaly, set_detect_anomaly


_inference_depth = threading.local()


def is_inference_mode_enabled() -> bool:
    """Whether an ``inference_mode()`` block is active on this thread."""
    return getattr(_inference_depth, "value", 0) > 0


def make_inference_mode(no_grad: type) -> type:
    """``inference_mode`` over one engine's ``no_grad``."""

    class inference_mode:
        """``inference_mode(mode=True)``: as ``no_grad`` (nothing is recorded), as a context
        manager or a decorator, with ``is_inference_mode_enabled()`` true inside. transgrad
        does not mark the tensors made inside as inference tensors (they may later take part in
        recording, which torch refuses); ``mode=False`` changes nothing."""

        def __new__(cls, mode: Any = True) -> Any:
            if callable(mode):  # bare @inference_mode
                return cls()(mode)
            return super().__new__(cls)

        def __init__(self, mode: bool = True) -> None:
            self.mode = bool(mode)

        def __enter__(self) -> None:
            self._inner = no_grad() if self.mode else contextlib.nullcontext()
            self._inner.__enter__()
            if self.mode:
                _inference_depth.value = getattr(_inference_depth, "value", 0) + 1

        def __exit__(self, *exc: object) -> None:
            if self.mode:
                _inference_depth.value -= 1
            self._inner.__exit__(*exc)

        def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
            mode = self.mode

            @functools.wraps(fn)
            def run(*args: Any, **kwargs: Any) -> Any:
                with inference_mode(mode):
                    return fn(*args, **kwargs)

            return run

        def clone(self) -> "inference_mode":
            return type(self)(self.mode)

    return inference_mode
