"""Legacy and process-level names of ``autograd`` that both engines export: ``Variable``,
``InplaceFunction``, ``set_multithreading_enabled`` / ``is_multithreading_enabled``.

Input: one engine's Tensor class and ``Function`` base. Output: the names, bound to it, with
PyTorch's behaviour: ``Variable(t)`` is ``t.detach()`` (same storage) with ``requires_grad``
as asked, and every tensor of the engine is an ``isinstance`` of ``Variable``;
``InplaceFunction(inplace=False)`` is a ``Function`` remembering ``inplace``.

Note [Multithreaded backward flag]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch runs the backward of CUDA/other-device graphs on per-device worker threads and this flag
turns that off. Both transgrad engines are CPU-only and run every backward on the calling
thread (the compiled engine with the GIL released), so the flag is recorded and reported by
``is_multithreading_enabled`` and changes nothing else: there is no other thread to disable.
"""

from __future__ import annotations

from typing import Any, Callable, Tuple


class _ExecutionEngine:
    """``Variable._execution_engine``, torch's handle on its engine; code reaches it for
    ``queue_callback`` (a callback run when the running backward ends)."""

    def __init__(self, queue_callback: Callable[[Callable[[], Any]], None]) -> None:
        self._queue = queue_callback

    def queue_callback(self, callback: Callable[[], Any]) -> None:
        self._queue(callback)


def make_variable(tensor_cls: Any, empty: Callable[[], Any],
                  queue_callback: Callable[[Callable[[], Any]], None]) -> type:
    """The engine's ``Variable``: ``empty()`` makes the tensor of ``Variable()``;
    ``queue_callback`` is the engine's (``Variable._execution_engine.queue_callback``)."""

    class _VariableMeta(type):
        def __instancecheck__(cls, obj: Any) -> bool:
            return isinstance(obj, tensor_cls)

    class Variable(metaclass=_VariableMeta):
        """Legacy wrapper (PyTorch < 0.4): ``Variable(t, requires_grad=False)`` is a tensor
        sharing ``t``'s data without its history."""

        def __new__(cls, data: Any = None, requires_grad: bool = False,
                    volatile: bool = False) -> Any:
            if data is None:
                data = empty()
            if not isinstance(data, tensor_cls):
                raise TypeError(f"Variable data has to be a tensor, but got "
                                f"{type(data).__name__}")
            out = data.detach()
            if requires_grad:
                out.requires_grad_(True)
            return out

    Variable._execution_engine = _ExecutionEngine(queue_callback)  # type: ignore[attr-defined]
    return Variable


def make_inplace_function(function_cls: type) -> type:
    class InplaceFunction(function_cls):  # type: ignore[misc,valid-type]
        """Kept for old code: a ``Function`` with an ``inplace`` flag; use ``Function``."""

        def __init__(self, inplace: bool = False) -> None:
            super().__init__()
            self.inplace = inplace

    return InplaceFunction


def make_multithreading() -> Tuple[type, Callable[[], bool]]:
    """``(set_multithreading_enabled, is_multithreading_enabled)``; Note [Multithreaded
    backward flag]."""
    state = [True]

    def is_multithreading_enabled() -> bool:
        return state[0]

    class set_multithreading_enabled:
        """Sets the flag at once; as a context manager, restores the previous value on exit."""

        def __init__(self, mode: bool) -> None:
            self._prev = state[0]
            self.mode = bool(mode)
            state[0] = self.mode

        def __enter__(self) -> None:
            state[0] = self.mode

        def __exit__(self, *exc: object) -> None:
            state[0] = self._prev

        def clone(self) -> "set_multithreading_enabled":
            return type(self)(self.mode)

    return set_multithreading_enabled, is_multithreading_enabled
