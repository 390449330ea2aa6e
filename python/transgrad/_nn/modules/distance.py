"""Engine-neutral CosineSimilarity and PairwiseDistance (torch.nn.modules.distance).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

from typing import Any

from .. import functional as F
from ..module import Module


class PairwiseDistance(Module):
    """``||x1 - x2 + eps||_p`` along the last dim (``F.pairwise_distance``); the degree is kept
    as ``norm``, as torch names it."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Any, x2: Any) -> Any:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """The cosine of the angle between x1 and x2 along ``dim`` (``F.cosine_similarity``)."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Any, x2: Any) -> Any:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
