"""Engine-neutral Flatten and Unflatten (torch.nn.modules.flatten).

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


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size`` (one entry may be -1)."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError("unflattened_size must be tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, x: Any) -> Any:
        shape = tuple(x.shape)
        d = self.dim % len(shape)
        sizes = self.unflattened_size
        known = 1
        for s in sizes:
            known *= s if s != -1 else 1
        if (-1 not in sizes and known != shape[d]) or (-1 in sizes and shape[d] % known):
            raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to "
                               f"the size of dim {self.dim} ({shape[d]}) in the input tensor")
        return x.reshape(*shape[:d], *sizes, *shape[d + 1:])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
