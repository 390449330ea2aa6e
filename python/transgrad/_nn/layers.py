"""nn layers, engine-neutral: containers, layers with parameters (linear, embedding, norms,
convolutions), pooling, activations, losses.

Engine-neutral like ``Module`` (see module.py): ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each to an engine (Note [Which engine makes a layer's
parameters]).
"""

from __future__ import annotations

import collections
import math
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from . import functional as F
from .module import Module, _is_tensor

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

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _index(self, idx: int) -> str:
        n = len(self)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return str(idx % n)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Any) -> ModuleList:
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        for m in list(modules):
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Any) -> ModuleList:
        return self.extend(modules)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[self._index(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(self._index(idx), module)

    def __delitem__(self, idx: Any) -> None:
        mods = list(self._modules.values())
        del mods[idx]
        self._modules.clear()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)


class ModuleDict(Module):
    """Modules by name, registered, in insertion order."""

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        v = self[key]
        del self[key]
        return v

    def keys(self) -> Any:
        return self._modules.keys()

    def items(self) -> Any:
        return self._modules.items()

    def values(self) -> Any:
        return self._modules.values()

    def update(self, modules: Any) -> None:
        for key, m in _pairs("ModuleDict", modules):
            self[key] = m


def _pairs(owner: str, values: Any) -> list:
    """(key, value) pairs of a mapping or of an iterable of pairs (torch's ``update``)."""
    if isinstance(values, collections.abc.Mapping):
        return list(values.items())
    if not isinstance(values, Iterable):
        raise TypeError(f"{owner}.update should be called with an iterable of key/value pairs, "
                        f"but got {type(values).__name__}")
    out = []
    for j, pair in enumerate(values):
        if not isinstance(pair, Iterable) or len(pair) != 2:
            raise ValueError(f"{owner} update sequence element #{j} should be Iterable; is "
                             f"{type(pair).__name__}" if not isinstance(pair, Iterable) else
                             f"{owner} update sequence element #{j} has length {len(pair)}; "
                             "2 is required")
        out.append((pair[0], pair[1]))
    return out


def _parameter_line(key: Any, p: Any, param_cls: type) -> str:
    kind = "Parameter" if isinstance(p, param_cls) else "Tensor"
    size = "x".join(str(d) for d in p.shape)
    return f"  ({key}): {kind} containing: [{p.dtype} of size {size}]"


class ParameterList(Module):
    """A list of parameters, registered; tensors are wrapped in this engine's Parameter."""

    def __init__(self, values: Any = None) -> None:
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self.extend(values)

    def _index(self, idx: int) -> str:
        if not -self._size <= idx < self._size:
            raise IndexError(f"index {idx} is out of range")
        return str(idx % self._size)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return type(self)([self[i] for i in range(self._size)[idx]])
        return getattr(self, self._index(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        key = self._index(idx)
        if _is_tensor(param) and not isinstance(param, self.Parameter):
            param = self.Parameter(param)
        setattr(self, key, param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(self._size))

    def __iadd__(self, parameters: Any) -> ParameterList:
        return self.extend(parameters)

    def append(self, value: Any) -> ParameterList:
        object.__setattr__(self, "_size", self._size + 1)
        self[self._size - 1] = value
        return self

    def extend(self, values: Any) -> ParameterList:
        if not isinstance(values, Iterable) or _is_tensor(values):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for v in list(values):
            self.append(v)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_parameter_line(i, p, self.Parameter) if _is_tensor(p)
                         else f"  ({i}): Object of type: {type(p).__name__}"
                         for i, p in enumerate(self))


class ParameterDict(Module):
    """Parameters by name, registered, in insertion order; tensors are wrapped in this
    engine's Parameter."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        object.__setattr__(self, "_keys", {})
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        if _is_tensor(value) and not isinstance(value, self.Parameter):
            value = self.Parameter(value)
        setattr(self, key, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def keys(self) -> Any:
        return self._keys.keys()

    def items(self) -> Any:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Any:
        return (self[k] for k in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def pop(self, key: str) -> Any:
        v = self[key]
        del self[key]
        return v

    def clear(self) -> None:
        for k in list(self._keys):
            del self[k]

    def update(self, parameters: Any) -> None:
        for key, p in _pairs("ParameterDict", parameters):
            self[key] = p

    def extra_repr(self) -> str:
        return "\n".join(_parameter_line(k, p, self.Parameter) if _is_tensor(p)
                         else f"  ({k}): Object of type: {type(p).__name__}"
                         for k, p in self.items())


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
        if bias:
            self.bias = self.Parameter(E.uniform((out_features,), -bound, bound, dtype))
        else:
            self.register_parameter("bias", None)

    def forward(self, x: Any) -> Any:
        return F.linear(x, self.weight, self.bias)

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
        return F.embedding(idx, self.weight)

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
        self.register_parameter("weight", self.Parameter(m.ones(*self.normalized_shape, dtype=dt))
                                if elementwise_affine else None)
        self.register_parameter("bias", self.Parameter(m.zeros(*self.normalized_shape, dtype=dt))
                                if elementwise_affine and bias else None)

    def forward(self, x: Any) -> Any:
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


# ---------------------------------------------------------------------------------------------
# Convolution and batch norm


def _ntuple(v: Any, n: int, name: str) -> tuple:
    t = (int(v),) * n if isinstance(v, int) else tuple(int(i) for i in v)
    if len(t) != n:
        raise ValueError(f"{name} must be an int or a {n}-tuple of ints, got {v!r}")
    return t


class _ConvNd(Module):
    """What Conv1d and Conv2d share: arguments, torch's initialisation, repr.

    Initialisation as torch (``kaiming_uniform_(a=sqrt(5))``): weight and bias
    ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = in_channels / groups * prod(kernel_size).
    """

    _n = 0            # spatial dims
    _function = ""    # the functional it runs

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", dtype: Any = None) -> None:
        super().__init__()
        n = self._n
        if groups <= 0 or in_channels % groups or out_channels % groups:
            raise ValueError(f"{type(self).__name__}: in_channels ({in_channels}) and "
                             f"out_channels ({out_channels}) must be divisible by groups "
                             f"({groups}), a positive int")
        if padding_mode != "zeros":
            raise NotImplementedError(f"{type(self).__name__}: padding_mode={padding_mode!r} "
                                      "is not supported (only 'zeros')")
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.kernel_size = _ntuple(kernel_size, n, "kernel_size")
        self.stride = _ntuple(stride, n, "stride")
        self.dilation = _ntuple(dilation, n, "dilation")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"padding must be 'valid', 'same', an int or a tuple, got "
                                 f"{padding!r}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding: Any = padding
        else:
            self.padding = _ntuple(padding, n, "padding")
        self.groups, self.padding_mode = int(groups), padding_mode
        E, b = self._E, self._bound()
        shape = (self.out_channels, self.in_channels // self.groups) + self.kernel_size
        self.weight = self.Parameter(E.uniform(shape, -b, b, dtype))
        if bias:
            self.bias = self.Parameter(E.uniform((self.out_channels,), -b, b, dtype))
        else:
            self.register_parameter("bias", None)

    def _bound(self) -> float:
        fan_in = self.in_channels // self.groups * math.prod(self.kernel_size)
        return 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0

    def reset_parameters(self) -> None:
        """Fresh draws from the engine's generator, with torch's bounds (class docstring)."""
        E, b = self._E, self._bound()
        for p in (self.weight, self.bias):
            if p is not None:
                E.assign_(p, E.uniform(tuple(p.shape), -b, b, p.dtype))

    def forward(self, x: Any) -> Any:
        return getattr(F, self._function)(x, self.weight, self.bias, self.stride,
                                                self.padding, self.dilation, self.groups)

    def extra_repr(self) -> str:
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * self._n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self._n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv1d(_ConvNd):
    """1-D convolution over (N, C_in, L) or (C_in, L): weight (C_out, C_in / groups, k)."""

    _n, _function = 1, "conv1d"


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W) or (C_in, H, W): weight
    (C_out, C_in / groups, kh, kw)."""

    _n, _function = 2, "conv2d"


class _BatchNorm(Module):
    """Batch norm over the channel dim (dim 1), as torch.

    Parameters ``weight`` (ones) and ``bias`` (zeros; none with ``bias=False``) when
    ``affine``; buffers
    ``running_mean`` (zeros), ``running_var`` (ones) and ``num_batches_tracked`` (int64 0-d)
    when ``track_running_stats``. Training normalises by the batch statistics and updates the
    running ones in place: ``(1 - momentum) * running + momentum * batch`` (the batch
    variance unbiased), with ``momentum=None`` a cumulative average
    (``momentum = 1 / num_batches_tracked``). Eval normalises by the running statistics
    (by the batch's when there are none).
    """

    _dims: tuple = ()   # the input ranks accepted

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = int(num_features), float(eps), momentum
        self.affine, self.track_running_stats = bool(affine), bool(track_running_stats)
        m, dt = self._E.module, self._E.dtype(dtype)
        if self.affine:
            self.weight = self.Parameter(m.ones(self.num_features, dtype=dt))
            if bias:
                self.bias = self.Parameter(m.zeros(self.num_features, dtype=dt))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", m.zeros(self.num_features, dtype=dt))
            self.register_buffer("running_var", m.ones(self.num_features, dtype=dt))
            self.register_buffer("num_batches_tracked", m.tensor(0, dtype=m.int64))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            E = self._E
            E.assign_(self.running_mean, self.running_mean.detach() * 0.0)
            E.assign_(self.running_var, self.running_var.detach() * 0.0 + 1.0)
            E.assign_(self.num_batches_tracked, self.num_batches_tracked.detach() * 0)

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            E = self._E
            E.assign_(self.weight, self.weight.detach() * 0.0 + 1.0)
            if self.bias is not None:
                E.assign_(self.bias, self.bias.detach() * 0.0)

    def forward(self, x: Any) -> Any:
        if x.ndim not in self._dims:
            want = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"{type(self).__name__}: expected {want} input (got {x.ndim}D "
                             f"input)")
        if x.shape[1] != self.num_features:
            raise ValueError(f"{type(self).__name__}({self.num_features}): input has "
                             f"{x.shape[1]} channels (dim 1), shape {tuple(x.shape)}")
        factor = 0.0 if self.momentum is None else float(self.momentum)
        if self.training and self.track_running_stats:
            n = self.num_batches_tracked
            self._E.assign_(n, n.detach() + 1)
            if self.momentum is None:
                factor = 1.0 / float(n.item())
        use_batch = self.training or self.running_mean is None
        track = not self.training or self.track_running_stats
        return F.batch_norm(x, self.running_mean if track else None,
                                  self.running_var if track else None, self.weight, self.bias,
                                  use_batch, factor, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch norm of (N, C) or (N, C, L) inputs (statistics over N and L)."""

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm of (N, C, H, W) inputs (statistics over N, H and W)."""

    _dims = (4,)


# ---------------------------------------------------------------------------------------------
# Pooling


class MaxPool2d(Module):
    """Max over (kh, kw) windows; ``stride`` defaults to ``kernel_size``."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, x: Any) -> Any:
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                                  self.ceil_mode, self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool2d(Module):
    """Mean over (kh, kw) windows; ``stride`` defaults to ``kernel_size``."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, x: Any) -> Any:
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                  self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """Average pooling to a fixed ``output_size`` (an int or a pair; None keeps that dim)."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, x: Any) -> Any:
        return F.adaptive_avg_pool2d(x, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


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
        return F.relu(x)


class Tanh(Module):
    def forward(self, x: Any) -> Any:
        return F.tanh(x)


class Sigmoid(Module):
    def forward(self, x: Any) -> Any:
        return F.sigmoid(x)


class SiLU(Module):
    def forward(self, x: Any) -> Any:
        return F.silu(x)


class GELU(Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: Any) -> Any:
        return F.gelu(x, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, x: Any) -> Any:
        return F.softplus(x, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class ELU(Module):
    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        self.alpha = alpha

    def forward(self, x: Any) -> Any:
        return F.elu(x, self.alpha)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}"


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01) -> None:
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: Any) -> Any:
        return F.leaky_relu(x, self.negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}"


class Softmax(Module):
    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: Any) -> Any:
        return F.softmax(x, self.dim)


class LogSoftmax(Softmax):
    def forward(self, x: Any) -> Any:
        return F.log_softmax(x, self.dim)


class Dropout(Module):
    """Zero elements with probability ``p`` while training (seeded by ``manual_seed``)."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability must be in [0, 1], got {p}")
        self.p = float(p)

    def forward(self, x: Any) -> Any:
        return F.dropout(x, self.p, self.training)

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
