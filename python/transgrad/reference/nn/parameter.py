"""``transgrad.reference.nn.parameter.Parameter``: the reference engine's Parameter.

A subclass of ``transgrad.reference.Tensor`` (Note [Parameter construction] in
``transgrad/_nn/parameter.py``); ``transgrad.nn.parameter`` holds the compiled engine's twin.
"""

from __future__ import annotations

from typing import Any

import transgrad.reference as _ref
from transgrad._device import check_device
from transgrad._nn.parameter import (
    ParameterMixin,
    UninitializedTensorMixin,
    is_lazy,
    take_over_slots,
)


class Parameter(ParameterMixin, _ref.Tensor):
    """A tensor that a Module registers as a parameter: a leaf with requires_grad=True,
    sharing data with the tensor it was made from."""

    def __new__(cls, data: Any = None, requires_grad: bool = True) -> Any:
        return take_over_slots(cls, _ref.zeros(0) if data is None else data, requires_grad)

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        pass  # all done by __new__


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (a lazy module's, until its first call):
    ``materialize(shape)`` makes it a Parameter (``transgrad._nn.parameter``)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> Any:
        check_device(device)
        return take_over_slots(cls, _ref.empty(0, dtype=dtype), requires_grad)

    def __init__(self, requires_grad: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        pass  # all done by __new__


__all__ = ["Parameter", "UninitializedParameter", "is_lazy"]
