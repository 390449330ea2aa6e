"""``transgrad.autograd.graph``: torch's saved-tensor hook names for the compiled engine.

``save_on_cpu`` and ``disable_saved_tensors_hooks`` work (tensors are always on the CPU, and
no hooks can be registered here to disable). ``saved_tensors_hooks`` with user pack/unpack
functions raises NotImplementedError on entry rather than ignoring the hooks: the compiled
nodes keep their saved tensors in C++ (``SavedVariable`` members of the generated nodes), and
running hooks needs the C++ ``SavedVariable`` to call back into Python on save and unpack, the
thread-local hook stack in C++ beside grad mode, and the GIL taken at those two points
(see the reference engine, ``transgrad.reference.autograd.graph``, for the semantics).
"""

from __future__ import annotations

from typing import Any, Callable

from transgrad._api.graph_dot import render, to_dot, to_svg  # drawing the graph (both engines)

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "to_dot",
           "to_svg", "render"]

_disabled: list = []


class saved_tensors_hooks:
    """Not supported by the compiled engine yet (see the module docstring)."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self) -> None:
        if _disabled:
            raise RuntimeError(_disabled[-1])
        raise NotImplementedError(
            "autograd.graph.saved_tensors_hooks is not supported by the compiled engine yet "
            "(its nodes save tensors in C++); use transgrad.reference for pack/unpack hooks")

    def __exit__(self, *exc: object) -> None:
        pass


class save_on_cpu:
    """Saved tensors stay on the CPU: transgrad tensors always are, so this changes nothing
    (``pin_memory`` accepted and ignored, as on a machine without CUDA)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        self.pin_memory = pin_memory

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        pass


class disable_saved_tensors_hooks:
    """While active, ``saved_tensors_hooks`` raises ``RuntimeError(error_message)``."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        _disabled.append(self.error_message)

    def __exit__(self, *exc: object) -> None:
        _disabled.pop()
