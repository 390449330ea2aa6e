"""Engine-neutral Dropout (torch.nn.modules.dropout).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

from typing import Any

from .. import functional as F
from ..module import Module


class _DropoutNd(Module):
    """The options every dropout layer shares: ``p`` and ``inplace``."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = float(p), bool(inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero elements with probability ``p`` while training (seeded by ``manual_seed``)."""

    def forward(self, x: Any) -> Any:
        return F.dropout(x, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of (N, C, L) or (C, L) with probability ``p`` while training."""

    def forward(self, x: Any) -> Any:
        return F.dropout1d(x, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of (N, C, H, W) or (C, H, W) with probability ``p``."""

    def forward(self, x: Any) -> Any:
        return F.dropout2d(x, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) with probability ``p``."""

    def forward(self, x: Any) -> Any:
        return F.dropout3d(x, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps SELU's self-normalising mean and variance."""

    def forward(self, x: Any) -> Any:
        return F.alpha_dropout(x, self.p, self.training, self.inplace)
