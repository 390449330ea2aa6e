"""Devices, as ``torch.device``: transgrad computes on the CPU only.

Programs written for torch name devices everywhere (``device = "cuda" if
torch.cuda.is_available() else "cpu"``, ``tensor.to(device)``, ``zeros(3, device=device)``).
``device`` parses and prints as torch's; every factory, ``Tensor.to`` and ``Module.to`` accept
the CPU (``"cpu"``, ``"cpu:0"``, ``device("cpu")``) and refuse any other device type with a
clear error, raised where it is asked for (torch's own CPU build raises "Torch not compiled with
CUDA enabled" there). Engine-neutral: both engines share this module.
"""

from __future__ import annotations

import operator
from typing import Any, Optional

# torch's device types (c10::DeviceType), in the order of its error message
_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
          "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
          "privateuseone")


class device:  # noqa: N801  (torch's name)
    """``device("cpu")``, ``device("cuda:1")``, ``device("cuda", 1)``, ``device(type="cpu")``."""

    __slots__ = ("_type", "_index")

    def __init__(self, type: Any, index: Optional[int] = None) -> None:  # noqa: A002
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): a device object takes no index")
            self._type, self._index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type  # torch: an int is a CUDA ordinal
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({builtin_type_name(type)})")
        kind, _, ordinal = type.partition(":")
        if kind not in _TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of "
                               f"device string: {type}")
        if ordinal:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index "
                                   f"was passed explicitly: {type}")
            if not ordinal.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(ordinal)
        if index is not None:
            index = operator.index(index)
            if index < 0:
                raise RuntimeError(f"Device index must not be negative, got {index}")
        self._type, self._index = kind, index

    @property
    def type(self) -> str:
        return self._type

    @property
    def index(self) -> Optional[int]:
        return self._index

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, device) and (self._type, self._index) == (other._type,
                                                                             other._index)

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __reduce__(self) -> Any:
        return (device, (self._type, self._index))


def builtin_type_name(value: Any) -> str:
    return type(value).__name__


CPU = device("cpu")


def check_device(value: Any) -> device:
    """``value`` (None, a string, an int or a device) as a device transgrad can compute on: the
    CPU. Anything else raises, naming the device asked for."""
    if value is None:
        return CPU
    d = value if isinstance(value, device) else device(value)
    if d.type != "cpu":
        raise RuntimeError(
            f"transgrad computes on the CPU only: device '{d}' is not available "
            f"(transgrad.cuda.is_available() is False). Use device='cpu', or leave device out.")
    return d


def is_device_like(value: Any) -> bool:
    """Whether ``value`` names a device (``x.to("cpu")``) rather than a dtype."""
    if isinstance(value, device):
        return True
    return isinstance(value, str) and value.partition(":")[0] in _TYPES


def get_default_device() -> device:
    """The device factories use: always the CPU."""
    return CPU


def set_default_device(value: Any) -> None:
    """Accepted for the CPU (and None); any other device raises (see ``check_device``)."""
    check_device(value)
