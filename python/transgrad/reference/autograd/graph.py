"""``transgrad.reference.autograd.graph``: ``saved_tensors_hooks``, ``save_on_cpu`` and
``disable_saved_tensors_hooks`` (torch's names and semantics) for the reference engine.

Input: pack/unpack callables. Output: context managers that push them on the thread's hook
stack (``transgrad.reference.saved_hooks``), which every tensor saved for backward goes
through while they are active: the formula nodes' and Python Functions' (Note [Saved tensor
hooks] in reference/node.py).
"""

from __future__ import annotations

from typing import Any, Callable

from transgrad._api.graph_dot import render, to_dot, to_svg  # drawing the graph (both engines)
from transgrad.reference import saved_hooks

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "to_dot",
           "to_svg", "render"]


class saved_tensors_hooks:
    """``with saved_tensors_hooks(pack, unpack):`` every tensor saved for backward inside is
    kept as ``pack(t)`` and given back as ``unpack(packed)`` when backward needs it."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self) -> None:
        saved_hooks.push_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *exc: object) -> None:
        saved_hooks.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU: transgrad tensors always are, so pack and unpack
    are the identity (``pin_memory`` accepted and ignored, as on a machine without CUDA)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(lambda t: t, lambda t: t)


class disable_saved_tensors_hooks:
    """While active, registering saved-tensor hooks raises ``RuntimeError(error_message)``
    and none of the outer hooks apply."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        saved_hooks.push_disabled(self.error_message)

    def __exit__(self, *exc: object) -> None:
        saved_hooks.pop()
