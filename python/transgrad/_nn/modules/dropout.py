"""Engine-neutral Dropout (torch.nn.modules.dropout).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

from typing import Any

from .. import functional as F
from ..module import Module


class Dropout(Module):
    """Zero elements with probability ``p`` while training (seeded by ``manual_seed``)."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        if inplace:
            raise NotImplementedError("Dropout(inplace=True) is not supported: use the default "
                                      "inplace=False (the same values, in a new tensor)")
        self.p, self.inplace = float(p), bool(inplace)

    def forward(self, x: Any) -> Any:
        return F.dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
