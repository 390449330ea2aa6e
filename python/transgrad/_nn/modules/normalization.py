"""Engine-neutral LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm
(torch.nn.modules.normalization).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

from typing import Any

from .. import functional as F
from ..module import Module, dtype_arg


class LayerNorm(Module):
    """Normalise over the trailing ``normalized_shape`` dims; affine weight 1, bias 0."""

    def __init__(self, normalized_shape: Any, eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, dtype: Any = None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape
        self.normalized_shape = tuple(int(s) for s in shape)
        self.eps = float(eps)
        self.elementwise_affine = elementwise_affine
        m, dt = self._E.module, dtype_arg(self._E, dtype)
        self.register_parameter("weight", self.Parameter(m.ones(*self.normalized_shape, dtype=dt))
                                if elementwise_affine else None)
        self.register_parameter("bias", self.Parameter(m.zeros(*self.normalized_shape, dtype=dt))
                                if elementwise_affine and bias else None)

    def forward(self, x: Any) -> Any:
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalise groups of ``num_channels / num_groups`` channels per sample; affine weight 1,
    bias 0 per channel."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups, self.num_channels = int(num_groups), int(num_channels)
        self.eps, self.affine = float(eps), bool(affine)
        m, dt = self._E.module, dtype_arg(self._E, dtype)
        self.register_parameter("weight", self.Parameter(m.ones(num_channels, dtype=dt))
                                if affine else None)
        self.register_parameter("bias", self.Parameter(m.zeros(num_channels, dtype=dt))
                                if affine and bias else None)

    def forward(self, x: Any) -> Any:
        return F.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class RMSNorm(Module):
    """Divide by the root mean square over the trailing ``normalized_shape`` dims; affine
    weight 1."""

    def __init__(self, normalized_shape: Any, eps: float | None = None,
                 elementwise_affine: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape
        self.normalized_shape = tuple(int(s) for s in shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        m, dt = self._E.module, dtype_arg(self._E, dtype)
        self.register_parameter("weight", self.Parameter(m.ones(*self.normalized_shape, dtype=dt))
                                if elementwise_affine else None)

    def forward(self, x: Any) -> Any:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    """Normalise each channel by the squares of its ``size`` neighbouring channels."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75,
                 k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, x: Any) -> Any:
        return F.local_response_norm(x, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
