"""nn modules, engine-neutral: Module, Parameter and the layers.

The classes here are templates: ``build.specialise`` derives one subclass per engine that sets
``_E`` (the ``Engine`` adapter) and ``_F`` (functional bound to it), so that
``transgrad.nn.Linear`` makes compiled tensors and ``transgrad.reference.nn.Linear`` reference
ones, from the same code. Behaviour follows ``torch.nn`` for what it covers: registration by
assignment, ``parameters``/``named_parameters``/``modules``, ``state_dict`` (tensors sharing
memory with the module) and ``load_state_dict`` (copies in place, keeps the Parameter objects),
``train``/``eval``, ``zero_grad``, torch-style ``repr``.
"""

from __future__ import annotations

import collections
import math
from collections.abc import Iterator, Sequence
from typing import Any

IncompatibleKeys = collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


class Module:
    """Base class of layers and models: assign Parameters and Modules as attributes."""

    _E: Any = None   # the Engine adapter (set on the per-engine subclass)
    _F: Any = None   # functional bound to that engine
    training: bool

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", collections.OrderedDict())
        object.__setattr__(self, "_buffers", collections.OrderedDict())
        object.__setattr__(self, "_modules", collections.OrderedDict())
        object.__setattr__(self, "training", True)

    # -- registration ----------------------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {name!r} before Module.__init__() is called "
                                 f"(call super().__init__() first in {type(self).__name__})")
        params, buffers, modules = self._parameters, self._buffers, self._modules
        if _is_parameter(self, value):
            self._discard(name)
            params[name] = value
        elif isinstance(value, Module):
            self._discard(name)
            modules[name] = value
        elif name in params:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} as parameter {name!r} "
                                "(nn.Parameter or None expected)")
            params[name] = None
        elif name in modules:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} as child module "
                                f"{name!r} (nn.Module or None expected)")
            modules[name] = None
        elif name in buffers:
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _discard(self, name: str) -> None:
        self.__dict__.pop(name, None)
        for d in (self._parameters, self._buffers, self._modules):
            d.pop(name, None)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __delattr__(self, name: str) -> None:
        for store in (self._parameters, self._buffers, self._modules):
            if name in store:
                del store[name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Any) -> None:
        if param is not None and not _is_parameter(self, param):
            raise TypeError(f"cannot register {type(param).__name__} as parameter {name!r} "
                            "(nn.Parameter or None expected)")
        self._discard(name)
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Any) -> None:
        self._discard(name)
        self._buffers[name] = tensor

    def add_module(self, name: str, module: Module | None) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module")
        self._discard(name)
        self._modules[name] = module

    # -- running ---------------------------------------------------------------------------

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def train(self, mode: bool = True) -> Module:
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self) -> Module:
        return self.train(False)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            _zero_grad(self._E, p, set_to_none)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def apply(self, fn: Any) -> Module:
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def to(self, dtype: Any) -> Module:
        """Convert floating parameters and buffers to ``dtype`` (new Parameter objects, as
        torch does when the dtype changes: build optimizers after calling this)."""
        E = self._E
        dtype = E.dtype(dtype)
        for m in self.modules():
            for name, p in list(m._parameters.items()):
                if p is not None and _is_floating(p) and p.dtype != dtype:
                    with E.no_grad():
                        m._parameters[name] = m.Parameter(p.detach().to(dtype),
                                                          requires_grad=p.requires_grad)
            for name, b in list(m._buffers.items()):
                if b is not None and _is_floating(b) and b.dtype != dtype:
                    m._buffers[name] = b.detach().to(dtype)
        return self

    def double(self) -> Module:
        return self.to(self._E.module.float64)

    def float(self) -> Module:
        return self.to(self._E.module.float32)

    # -- traversal -------------------------------------------------------------------------

    def named_parameters(self, prefix: str = "", recurse: bool = True
                         ) -> Iterator[tuple[str, Any]]:
        seen = set()
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mprefix, m in mods:
            for name, p in m._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{mprefix}.{name}" if mprefix else name), p

    def parameters(self, recurse: bool = True) -> Iterator[Any]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True
                      ) -> Iterator[tuple[str, Any]]:
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mprefix, m in mods:
            for name, b in m._buffers.items():
                if b is not None:
                    yield (f"{mprefix}.{name}" if mprefix else name), b

    def buffers(self, recurse: bool = True) -> Iterator[Any]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def named_modules(self, prefix: str = "", memo: set | None = None
                      ) -> Iterator[tuple[str, Module]]:
        memo = set() if memo is None else memo
        if id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(f"{prefix}.{name}" if prefix else name, memo)

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    # -- state -----------------------------------------------------------------------------

    def state_dict(self) -> collections.OrderedDict[str, Any]:
        """Parameters and buffers by dotted name, detached (sharing memory with the module)."""
        out: collections.OrderedDict[str, Any] = collections.OrderedDict()
        for mprefix, m in self.named_modules():
            for store in (m._parameters, m._buffers):
                for name, t in store.items():
                    if t is not None:
                        out[f"{mprefix}.{name}" if mprefix else name] = t.detach()
        return out

    def load_state_dict(self, state_dict: dict[str, Any], strict: bool = True) -> Any:
        """Copy values in place into this module's parameters and buffers (the Parameter
        objects stay the same, so optimizers keep working). Returns the missing and
        unexpected keys; with ``strict`` either raises a KeyError listing them."""
        E = self._E
        own: dict[str, tuple[Module, str, bool]] = {}
        for mprefix, m in self.named_modules():
            for is_param, store in ((True, m._parameters), (False, m._buffers)):
                for name, t in store.items():
                    if t is not None:
                        own[f"{mprefix}.{name}" if mprefix else name] = (m, name, is_param)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise KeyError(f"load_state_dict for {type(self).__name__}: missing keys "
                           f"{missing}, unexpected keys {unexpected}")
        errors: list[str] = []
        for key, (m, name, is_param) in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            cur = (m._parameters if is_param else m._buffers)[name]
            shape = tuple(value.shape)
            if shape != tuple(cur.shape):
                errors.append(f"{key}: shape {shape} in the state dict, {tuple(cur.shape)} in "
                              "the module")
        if errors:
            raise ValueError("load_state_dict: size mismatch: " + "; ".join(errors))
        for key, (m, name, is_param) in own.items():
            if key in state_dict:
                cur = (m._parameters if is_param else m._buffers)[name]
                E.assign_(cur, _as_engine_tensor(E, state_dict[key], cur.dtype))
        return IncompatibleKeys(missing, unexpected)

    # -- repr ------------------------------------------------------------------------------

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for name, m in self._modules.items():
            body = repr(m).replace("\n", "\n  ")
            lines.append(f"({name}): {body}")
        head = type(self).__name__ + "("
        if not lines:
            return head + ")"
        if len(lines) == 1 and not self._modules:
            return head + lines[0] + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))


PARAMETER_CLASSES: list = []  # every engine's Parameter class (filled by _nn.build)


def _is_parameter(module: Module, value: Any) -> bool:
    cls = getattr(type(module), "Parameter", None)
    if cls is not None and isinstance(value, cls):
        return True
    for other in PARAMETER_CLASSES:
        if isinstance(value, other):
            raise TypeError(f"cannot use a Parameter of {other.__module__} in "
                            f"{type(module).__module__}.{type(module).__name__}: a model's "
                            "parameters and layers must come from the same engine")
    return False


def _is_floating(t: Any) -> bool:
    return "float" in str(t.dtype)


def _zero_grad(E: Any, p: Any, set_to_none: bool) -> None:
    if p.grad is None:
        return
    if set_to_none:
        p.grad = None
    else:
        E.assign_(p.grad, p.grad.detach() * 0.0)


def _as_engine_tensor(E: Any, value: Any, dtype: Any) -> Any:
    if isinstance(value, E.Tensor):
        value = value.detach()
        return value if value.dtype == dtype else value.to(dtype)
    import numpy as np

    return E.module.tensor(np.asarray(value), dtype=dtype)


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
