"""``transgrad.nn.parameter.Parameter``: the compiled engine's Parameter (torch's module path).

A subclass of ``transgrad.Tensor`` (Note [Parameter construction] in ``transgrad/_nn/
parameter.py``); ``transgrad.reference.nn.parameter`` holds the reference engine's twin.
"""

from __future__ import annotations

from typing import Any

import transgrad as _tg
from transgrad._backend import is_tensor
from transgrad._device import check_device
from transgrad._nn.parameter import ParameterMixin, UninitializedTensorMixin, is_lazy


class Parameter(ParameterMixin, _tg.Tensor):
    """A tensor that a Module registers as a parameter: a leaf with requires_grad=True,
    sharing data with the tensor it was made from."""

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        src = _tg.zeros(0) if data is None else data if is_tensor(data) else _tg.Tensor(data)
        _tg.Tensor.__init__(self, src.detach())  # shares src's storage, without history
        self.requires_grad_(requires_grad)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (a lazy module's, until its first call):
    ``materialize(shape)`` makes it a Parameter (``transgrad._nn.parameter``)."""

    cls_to_become = Parameter

    def __init__(self, requires_grad: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        check_device(device)
        Parameter.__init__(self, _tg.empty(0, dtype=dtype), requires_grad)


__all__ = ["Parameter", "UninitializedParameter", "is_lazy"]
