"""Engine-neutral activation layers (torch.nn.modules.activation).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

from typing import Any

from .. import functional as F
from ..module import Module


class ReLU(Module):
    def forward(self, x: Any) -> Any:
        return F.relu(x)


class Tanh(Module):
    def forward(self, x: Any) -> Any:
        return F.tanh(x)


class Sigmoid(Module):
    def forward(self, x: Any) -> Any:
        return F.sigmoid(x)


class SiLU(Module):
    def forward(self, x: Any) -> Any:
        return F.silu(x)


class GELU(Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: Any) -> Any:
        return F.gelu(x, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, x: Any) -> Any:
        return F.softplus(x, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class ELU(Module):
    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        self.alpha = alpha

    def forward(self, x: Any) -> Any:
        return F.elu(x, self.alpha)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}"


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01) -> None:
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: Any) -> Any:
        return F.leaky_relu(x, self.negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}"


class Softmax(Module):
    """Softmax along ``dim`` (None: torch's deprecated implicit choice, with its warning)."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: Any) -> Any:
        return F.softmax(x, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, x: Any) -> Any:
        return F.log_softmax(x, self.dim, _stacklevel=5)
