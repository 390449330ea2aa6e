"""Engine-neutral Embedding (torch.nn.modules.sparse).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

from typing import Any

from .. import functional as F
from ..module import Module, dtype_arg


def _padding_index(padding_idx: int | None, num_embeddings: int, name: str) -> int | None:
    """``padding_idx`` made non-negative, after torch's range check (``name`` as torch
    spells it in its message)."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise AssertionError(f"{name} must be within num_embeddings")
    return padding_idx % num_embeddings


def _table(E: Any, rows: int, dim: int, padding_idx: int | None, weight: Any,
           dtype: Any) -> Any:
    """The initial table: ``weight`` when given (its shape checked), else N(0, 1) draws with
    the ``padding_idx`` row zero, as torch."""
    if weight is not None:
        if tuple(weight.shape) != (rows, dim):
            raise AssertionError("Shape of weight does not match num_embeddings and "
                                 "embedding_dim")
        return weight.detach()
    w = E.module.randn(rows, dim, dtype=dtype_arg(E, dtype))
    if padding_idx is not None:
        with E.no_grad():
            w[padding_idx] = 0.0
    return w


class Embedding(Module):
    """A lookup table: int64 indices -> rows of ``weight`` (num_embeddings, embedding_dim),
    initialised N(0, 1) as in torch (the ``padding_idx`` row zero)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False, _weight: Any = None,
                 _freeze: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        self.padding_idx = _padding_index(padding_idx, num_embeddings, "Padding_idx")
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        w = _table(self._E, num_embeddings, embedding_dim, self.padding_idx, _weight, dtype)
        self.weight = self.Parameter(w, requires_grad=not _freeze)

    @classmethod
    def from_pretrained(cls, embeddings: Any, freeze: bool = True,
                        padding_idx: int | None = None, max_norm: float | None = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> Any:
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)

    def forward(self, idx: Any) -> Any:
        return F.embedding(idx, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += ", scale_grad_by_freq=True"
        if self.sparse:
            s += ", sparse=True"
        return s


class EmbeddingBag(Module):
    """Sums, means or maxima of bags of embeddings (``F.embedding_bag``)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight: Any = None, include_last_offset: bool = False,
                 padding_idx: int | None = None, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        self.padding_idx = _padding_index(padding_idx, num_embeddings, "padding_idx")
        self.max_norm, self.norm_type, self.mode = max_norm, norm_type, mode
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        self.include_last_offset = include_last_offset
        w = _table(self._E, num_embeddings, embedding_dim, self.padding_idx, _weight, dtype)
        self.weight = self.Parameter(w)

    @classmethod
    def from_pretrained(cls, embeddings: Any, freeze: bool = True, max_norm: float | None = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        mode: str = "mean", sparse: bool = False,
                        include_last_offset: bool = False,
                        padding_idx: int | None = None) -> Any:
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                  _weight=embeddings, include_last_offset=include_last_offset,
                  padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag

    def forward(self, input: Any, offsets: Any = None, per_sample_weights: Any = None) -> Any:
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += ", scale_grad_by_freq=True"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s
