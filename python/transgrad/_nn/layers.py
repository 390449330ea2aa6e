"""nn layers, engine-neutral: containers, layers with parameters, activations, losses.

Templates like ``Module`` (see module.py): ``_nn.build`` specialises each per engine, in the
order of ``MODULES`` (a base before its subclasses).
"""

from __future__ import annotations

import collections
import math
from collections.abc import Iterator, Sequence
from typing import Any

from .module import Module

# ---------------------------------------------------------------------------------------------
# Containers


class Sequential(Module):
    """Modules applied in order: ``Sequential(a, b, c)`` or ``Sequential(OrderedDict(...))``."""

    def __init__(self, *mods: Any) -> None:
        super().__init__()
        if len(mods) == 1 and isinstance(mods[0], collections.OrderedDict):
            for name, m in mods[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(mods):
                self.add_module(str(i), m)

    def forward(self, x: Any) -> Any:
        for m in self._modules.values():
            x = m(x)
        return x

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, i: Any) -> Any:
        mods = list(self._modules.values())
        if isinstance(i, slice):
            return type(self)(*mods[i])
        return mods[i]

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self._modules)), module)
        return self


class ModuleList(Module):
    """A list of modules, registered (so their parameters are found)."""

    def __init__(self, mods: Sequence[Module] = ()) -> None:
        super().__init__()
        for m in mods:
            self.append(m)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self._modules)), module)
        return self

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, i: int) -> Module:
        return list(self._modules.values())[i]


# ---------------------------------------------------------------------------------------------
# Layers with parameters


class Linear(Module):
    """``y = x @ weight.T + bias``; weight and bias ~ U(-1/sqrt(in), 1/sqrt(in)) as in torch."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 dtype: Any = None) -> None:
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        bound = 1.0 / math.sqrt(in_features) if in_features > 0 else 0.0
        E = self._E
        self.weight = self.Parameter(E.uniform((out_features, in_features), -bound, bound, dtype))
        self.bias = (self.Parameter(E.uniform((out_features,), -bound, bound, dtype)) if bias
                     else None)
        if not bias:
            self.register_parameter("bias", None)

    def forward(self, x: Any) -> Any:
        return self._F.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


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
        return self._F.embedding(idx, self.weight)

    def extra_repr(self) -> str:
        return f"{self.num_embeddings}, {self.embedding_dim}"


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
        self.weight = self.Parameter(m.ones(*self.normalized_shape, dtype=dt)) \
            if elementwise_affine else None
        self.bias = self.Parameter(m.zeros(*self.normalized_shape, dtype=dt)) \
            if elementwise_affine and bias else None
        for name in ("weight", "bias"):
            if getattr(self, name) is None:
                self.register_parameter(name, None)

    def forward(self, x: Any) -> Any:
        return self._F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


# ---------------------------------------------------------------------------------------------
# Layers without parameters


class Identity(Module):
    def forward(self, x: Any) -> Any:
        return x


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


class ReLU(Module):
    def forward(self, x: Any) -> Any:
        return self._F.relu(x)


class Tanh(Module):
    def forward(self, x: Any) -> Any:
        return self._F.tanh(x)


class Sigmoid(Module):
    def forward(self, x: Any) -> Any:
        return self._F.sigmoid(x)


class SiLU(Module):
    def forward(self, x: Any) -> Any:
        return self._F.silu(x)


class GELU(Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: Any) -> Any:
        return self._F.gelu(x, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, x: Any) -> Any:
        return self._F.softplus(x, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class ELU(Module):
    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        self.alpha = alpha

    def forward(self, x: Any) -> Any:
        return self._F.elu(x, self.alpha)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}"


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01) -> None:
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: Any) -> Any:
        return self._F.leaky_relu(x, self.negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}"


class Softmax(Module):
    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: Any) -> Any:
        return self._F.softmax(x, self.dim)


class LogSoftmax(Softmax):
    def forward(self, x: Any) -> Any:
        return self._F.log_softmax(x, self.dim)


class Dropout(Module):
    """Zero elements with probability ``p`` while training (seeded by ``manual_seed``)."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability must be in [0, 1], got {p}")
        self.p = float(p)

    def forward(self, x: Any) -> Any:
        return self._F.dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"


# ---------------------------------------------------------------------------------------------
# Losses as modules


class CrossEntropyLoss(Module):
    def __init__(self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        super().__init__()
        self.weight, self.ignore_index = weight, ignore_index
        self.reduction, self.label_smoothing = reduction, label_smoothing

    def forward(self, input: Any, target: Any) -> Any:
        return self._F.cross_entropy(input, target, self.weight, self.ignore_index,
                                     self.reduction, self.label_smoothing)


class NLLLoss(Module):
    def __init__(self, weight: Any = None, ignore_index: int = -100,
                 reduction: str = "mean") -> None:
        super().__init__()
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction

    def forward(self, input: Any, target: Any) -> Any:
        return self._F.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


class MSELoss(Module):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, input: Any, target: Any) -> Any:
        return self._F.mse_loss(input, target, self.reduction)


class BCEWithLogitsLoss(Module):
    def __init__(self, weight: Any = None, reduction: str = "mean", pos_weight: Any = None
                 ) -> None:
        super().__init__()
        self.weight, self.reduction, self.pos_weight = weight, reduction, pos_weight

    def forward(self, input: Any, target: Any) -> Any:
        return self._F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                        self.reduction, self.pos_weight)


MODULES = (
    Module, Sequential, ModuleList, Linear, Embedding, LayerNorm, Identity, Flatten, ReLU, Tanh,
    Sigmoid, SiLU, GELU, Softplus, ELU, LeakyReLU, Softmax, LogSoftmax, Dropout,
    CrossEntropyLoss, NLLLoss, MSELoss, BCEWithLogitsLoss,
)
