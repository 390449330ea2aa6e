"""Engine-neutral LayerNorm (torch.nn.modules.normalization).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

from typing import Any

from .. import functional as F
from ..module import Module


class LayerNorm(Module):
    """Normalise over the trailing ``normalized_shape`` dims; affine weight 1, bias 0."""

    def __init__(self, normalized_shape: Any, eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, dtype: Any = None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape
        self.normalized_shape = tuple(int(s) for s in shape)
        self.eps = float(eps)
        self.elementwise_affine = elementwise_affine
        m, dt = self._E.module, self._E.dtype(dtype)
        self.register_parameter("weight", self.Parameter(m.ones(*self.normalized_shape, dtype=dt))
                                if elementwise_affine else None)
        self.register_parameter("bias", self.Parameter(m.zeros(*self.normalized_shape, dtype=dt))
                                if elementwise_affine and bias else None)

    def forward(self, x: Any) -> Any:
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")
