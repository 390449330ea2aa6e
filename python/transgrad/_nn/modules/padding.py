"""Engine-neutral padding layers (torch.nn.modules.padding): constant (and zero), reflection,
replication and circular padding in 1, 2 and 3 dims, each ``F.pad`` with its mode.

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import functional as F
from ..module import Module


def _sides(padding: Any, dims: int) -> tuple:
    """torch's ``_ntuple(2 * dims)``: an int pads every side, a sequence is kept as given."""
    if isinstance(padding, Iterable):
        return tuple(padding)
    return (padding,) * (2 * dims)


class _ConstantPadNd(Module):
    _dims = 0

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__()
        self.padding, self.value = _sides(padding, self._dims), value

    def forward(self, input: Any) -> Any:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with ``value``: ``padding`` is an int or (left, right)."""
    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims with ``value``: an int or (left, right, top, bottom)."""
    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dims with ``value``: an int or (left, right, top, bottom, front, back)."""
    _dims = 3


class _ZeroPad:
    """``ConstantPadNd`` with value 0, printed by its padding only (as torch)."""

    padding: tuple

    def __init__(self, padding: Any) -> None:
        # the ConstantPadNd after this class in the MRO takes (padding, value)
        super().__init__(padding, 0.0)  # type: ignore[call-arg]

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad, ConstantPad1d):
    """``ConstantPad1d`` with value 0."""


class ZeroPad2d(_ZeroPad, ConstantPad2d):
    """``ConstantPad2d`` with value 0."""


class ZeroPad3d(_ZeroPad, ConstantPad3d):
    """``ConstantPad3d`` with value 0."""


class _ModePadNd(Module):
    """Padding by ``F.pad``'s ``_mode`` over the last ``_dims`` dims."""
    _dims = 0
    _mode = ""

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _sides(padding, self._dims)

    def forward(self, input: Any) -> Any:
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_ModePadNd):
    """Pads the last dim with the reflection of the input (the edge not repeated)."""
    _dims, _mode = 1, "reflect"


class ReflectionPad2d(_ModePadNd):
    """Pads the last 2 dims with the reflection of the input."""
    _dims, _mode = 2, "reflect"


class ReflectionPad3d(_ModePadNd):
    """Pads the last 3 dims with the reflection of the input."""
    _dims, _mode = 3, "reflect"


class ReplicationPad1d(_ModePadNd):
    """Pads the last dim by repeating the edge value."""
    _dims, _mode = 1, "replicate"


class ReplicationPad2d(_ModePadNd):
    """Pads the last 2 dims by repeating the edge values."""
    _dims, _mode = 2, "replicate"


class ReplicationPad3d(_ModePadNd):
    """Pads the last 3 dims by repeating the edge values."""
    _dims, _mode = 3, "replicate"


class _CircularPadNd(_ModePadNd):
    """Wrap-around padding; as torch, the module checks the input's rank itself (batched or
    not) before ``F.pad``."""
    _mode = "circular"

    def forward(self, input: Any) -> Any:
        if input.ndim not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"expected {self._dims + 1}D or {self._dims + 2}D input "
                             f"(got {input.ndim}D input)")
        return F.pad(input, self.padding, self._mode)


class CircularPad1d(_CircularPadNd):
    """Pads the last dim with the values of the other end."""
    _dims = 1


class CircularPad2d(_CircularPadNd):
    """Pads the last 2 dims with the values of the other ends."""
    _dims = 2


class CircularPad3d(_CircularPadNd):
    """Pads the last 3 dims with the values of the other ends."""
    _dims = 3
