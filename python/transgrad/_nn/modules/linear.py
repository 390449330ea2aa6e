"""Engine-neutral Identity, Linear and Bilinear (torch.nn.modules.linear).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

import math
from typing import Any

from transgrad._device import check_device

from .. import functional as F
from ..module import Module
from .lazy import LazyModuleMixin


class Identity(Module):
    def forward(self, x: Any) -> Any:
        return x


class Linear(Module):
    """``y = x @ weight.T + bias``; weight and bias ~ U(-1/sqrt(in), 1/sqrt(in)) as in torch."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 dtype: Any = None) -> None:
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        bound = 1.0 / math.sqrt(in_features) if in_features > 0 else 0.0
        E = self._E
        self.weight = self.Parameter(E.uniform((out_features, in_features), -bound, bound, dtype))
        if bias:
            self.bias = self.Parameter(E.uniform((out_features,), -bound, bound, dtype))
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        """Fresh draws from the engine's generator with torch's bounds (weight, then bias)."""
        bound = 1.0 / self.in_features ** 0.5 if self.in_features > 0 else 0.0
        E = self._E
        for p in (self.weight, self.bias):
            if p is not None:
                E.assign_(p, E.uniform(tuple(p.shape), -bound, bound, p.dtype))

    def forward(self, x: Any) -> Any:
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """``y = x1 @ weight[k] @ x2 + bias[k]`` for each output feature k (F.bilinear); weight
    (out_features, in1_features, in2_features) and bias ~ U(-1/sqrt(in1), 1/sqrt(in1)) as in
    torch."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, dtype: Any = None) -> None:
        super().__init__()
        self.in1_features, self.in2_features = int(in1_features), int(in2_features)
        self.out_features = int(out_features)
        bound = 1.0 / math.sqrt(in1_features) if in1_features > 0 else 0.0
        E = self._E
        shape = (out_features, in1_features, in2_features)
        self.weight = self.Parameter(E.uniform(shape, -bound, bound, dtype))
        if bias:
            self.bias = self.Parameter(E.uniform((out_features,), -bound, bound, dtype))
        else:
            self.register_parameter("bias", None)

    def forward(self, input1: Any, input2: Any) -> Any:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")



class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose ``in_features`` is the last dim of its first input: until then
    ``weight`` and ``bias`` are ``UninitializedParameter``; the first call draws them as
    Linear does (torch's numbers after the same seed) and makes the module a Linear."""

    def __init__(self, out_features: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        check_device(device)
        super().__init__(0, 0, False, dtype=dtype)
        self.weight = self._uninitialized_parameter(dtype)
        self.out_features = int(out_features)
        if bias:
            self.bias = self._uninitialized_parameter(dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Any, *args: Any, **kwargs: Any) -> None:
        if self.has_uninitialized_params():
            self.in_features = int(input.shape[-1])
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()
