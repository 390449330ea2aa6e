"""Engine-neutral Flatten (torch.nn.modules.flatten).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

from typing import Any

from ..module import Module


class Flatten(Module):
    """Flatten dims ``start_dim..end_dim`` (default: all but the batch dim)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x: Any) -> Any:
        shape = tuple(x.shape)
        s = self.start_dim % len(shape)
        e = self.end_dim % len(shape)
        return x.reshape(*shape[:s], -1, *shape[e + 1:])

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
