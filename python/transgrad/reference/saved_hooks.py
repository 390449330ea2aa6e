"""The reference engine's saved-tensor hooks state (``autograd.graph.saved_tensors_hooks``).

Input: ``push``/``pop`` of a ``(pack, unpack)`` pair, or of a disabling message, by the context
managers of ``transgrad.reference.autograd.graph``. Output: ``current()``, the innermost pair
(None when there is none), read by ``SavedTensor`` when a node saves a tensor. Thread-local,
as torch's: hooks registered on one thread do not apply to graphs built on another.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, List, Optional, Tuple

Hooks = Tuple[Callable[[Any], Any], Callable[[Any], Any]]

_state = threading.local()


def _stack() -> List[Any]:
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    return stack


def push_hooks(pack: Callable[[Any], Any], unpack: Callable[[Any], Any]) -> None:
    for entry in reversed(_stack()):
        if isinstance(entry, str):  # disable_saved_tensors_hooks is active
            raise RuntimeError(entry)
    _stack().append((pack, unpack))


def push_disabled(message: str) -> None:
    _stack().append(message)


def pop() -> None:
    _stack().pop()


def current() -> Optional[Hooks]:
    """The hooks that apply to a tensor saved now (the innermost pair), or None."""
    for entry in reversed(_stack()):
        if isinstance(entry, str):
            return None
        return entry
    return None
