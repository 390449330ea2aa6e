"""Engine-neutral losses as modules (torch.nn.modules.loss).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

from typing import Any

from .. import functional as F
from ..module import Module


class CrossEntropyLoss(Module):
    def __init__(self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        super().__init__()
        self.weight, self.ignore_index = weight, ignore_index
        self.reduction, self.label_smoothing = reduction, label_smoothing

    def forward(self, input: Any, target: Any) -> Any:
        return F.cross_entropy(input, target, self.weight, self.ignore_index,
                                     self.reduction, self.label_smoothing)


class NLLLoss(Module):
    def __init__(self, weight: Any = None, ignore_index: int = -100,
                 reduction: str = "mean") -> None:
        super().__init__()
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction

    def forward(self, input: Any, target: Any) -> Any:
        return F.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


class MSELoss(Module):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, input: Any, target: Any) -> Any:
        return F.mse_loss(input, target, self.reduction)


class BCEWithLogitsLoss(Module):
    def __init__(self, weight: Any = None, reduction: str = "mean", pos_weight: Any = None
                 ) -> None:
        super().__init__()
        self.weight, self.reduction, self.pos_weight = weight, reduction, pos_weight

    def forward(self, input: Any, target: Any) -> Any:
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                        self.reduction, self.pos_weight)
