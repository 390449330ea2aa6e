"""Engine-neutral Embedding (torch.nn.modules.sparse).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

from typing import Any

from .. import functional as F
from ..module import Module


class Embedding(Module):
    """A lookup table: int64 indices -> rows of ``weight`` (num_embeddings, embedding_dim),
    initialised N(0, 1) as in torch."""

    def __init__(self, num_embeddings: int, embedding_dim: int, dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        E = self._E
        w = E.module.randn(num_embeddings, embedding_dim, dtype=E.dtype(dtype))
        self.weight = self.Parameter(w)

    def forward(self, idx: Any) -> Any:
        return F.embedding(idx, self.weight)

    def extra_repr(self) -> str:
        return f"{self.num_embeddings}, {self.embedding_dim}"
