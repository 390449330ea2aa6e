"""Engine-neutral convolutions (torch.nn.modules.conv).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

import math
from typing import Any

from transgrad._device import check_device

from .. import functional as F
from ..module import Module
from .lazy import LazyModuleMixin


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

    _n = 0              # spatial dims
    _function = ""      # the functional it runs
    _transposed = False  # weight (in, out / groups, *k) instead of (out, in / groups, *k)

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", dtype: Any = None) -> None:
        super().__init__()
        n = self._n
        if groups <= 0 or in_channels % groups or out_channels % groups:
            raise ValueError(f"{type(self).__name__}: in_channels ({in_channels}) and "
                             f"out_channels ({out_channels}) must be divisible by groups "
                             f"({groups}), a positive int")
        modes = ["zeros", "reflect", "replicate", "circular"]
        if padding_mode not in modes:
            raise ValueError(f"padding_mode must be one of {modes}, but got "
                             f"padding_mode='{padding_mode}'")
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
        shape = ((self.in_channels, self.out_channels // self.groups) if self._transposed
                 else (self.out_channels, self.in_channels // self.groups)) + self.kernel_size
        self.weight = self.Parameter(E.uniform(shape, -b, b, dtype))
        if bias:
            self.bias = self.Parameter(E.uniform((self.out_channels,), -b, b, dtype))
        else:
            self.register_parameter("bias", None)

    def _bound(self) -> float:
        # torch's fan_in is weight.shape[1] * prod(kernel_size), also for a transposed weight
        per_group = (self.out_channels if self._transposed else self.in_channels) // self.groups
        fan_in = per_group * math.prod(self.kernel_size)
        return 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0

    def reset_parameters(self) -> None:
        """Fresh draws from the engine's generator, with torch's bounds (class docstring)."""
        E, b = self._E, self._bound()
        for p in (self.weight, self.bias):
            if p is not None:
                E.assign_(p, E.uniform(tuple(p.shape), -b, b, p.dtype))

    def _mode_padding(self) -> tuple:
        """F.pad's (before, after) pairs, last dim first, for a non-zeros padding_mode."""
        pairs: tuple = ()
        for j in reversed(range(self._n)):
            if self.padding == "same":
                total = self.dilation[j] * (self.kernel_size[j] - 1)
                pairs += (total // 2, total - total // 2)
            elif self.padding == "valid":
                pairs += (0, 0)
            else:
                pairs += (self.padding[j], self.padding[j])
        return pairs

    def forward(self, x: Any) -> Any:
        conv = getattr(F, self._function)
        if self.padding_mode != "zeros":
            x = F.pad(x, self._mode_padding(), self.padding_mode)
            return conv(x, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return conv(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                    self.groups)

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
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """1-D convolution over (N, C_in, L) or (C_in, L): weight (C_out, C_in / groups, k)."""

    _n, _function = 1, "conv1d"


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W) or (C_in, H, W): weight
    (C_out, C_in / groups, kh, kw)."""

    _n, _function = 2, "conv2d"


class Conv3d(_ConvNd):
    """3-D convolution over (N, C_in, D, H, W) or (C_in, D, H, W): weight
    (C_out, C_in / groups, kd, kh, kw)."""

    _n, _function = 3, "conv3d"


class _ConvTransposeNd(_ConvNd):
    """What ConvTranspose1d and ConvTranspose2d share: ``output_padding``, a weight
    (C_in, C_out / groups, *kernel_size), padding_mode "zeros" only (as torch)."""

    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}")
        if isinstance(padding, str):
            raise ValueError(f"{type(self).__name__}: padding must be an int or a tuple, got "
                             f"{padding!r}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, dtype)
        self.output_padding = _ntuple(output_padding, self._n, "output_padding")

    def forward(self, x: Any, output_size: Any = None) -> Any:
        output_padding = (self.output_padding if output_size is None
                          else self._output_padding(x, output_size))
        return getattr(F, self._function)(x, self.weight, self.bias, self.stride,
                                          self.padding, output_padding, self.groups,
                                          self.dilation)

    def _output_padding(self, x: Any, output_size: Any) -> tuple:
        """The output_padding that makes the output ``output_size`` (its last n entries), as
        torch: within [smallest, smallest + stride - 1] per dim."""
        n = self._n
        size = [int(v) for v in output_size]
        if len(size) == n + 2 or (len(size) == n + 1 and x.ndim == n + 1):
            size = size[len(size) - n:]
        if len(size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {x.ndim}D input, output_size must have "
                             f"{n} or {n + 2} elements (got {len(output_size)})")
        spatial = tuple(x.shape[x.ndim - n:])
        smallest = [(spatial[i] - 1) * self.stride[i] - 2 * self.padding[i]
                    + self.dilation[i] * (self.kernel_size[i] - 1) + 1 for i in range(n)]
        largest = [smallest[i] + self.stride[i] - 1 for i in range(n)]
        if any(not smallest[i] <= size[i] <= largest[i] for i in range(n)):
            raise ValueError(f"requested an output size of {size}, but valid sizes range from "
                             f"{smallest} to {largest} (for an input of {list(spatial)})")
        return tuple(size[i] - smallest[i] for i in range(n))

    def extra_repr(self) -> str:
        s = super().extra_repr()
        if self.output_padding != (0,) * self._n:
            # torch's order: ..., dilation, output_padding, groups, bias
            head, sep, tail = s.partition(", groups=")
            if not sep:
                head, sep, tail = s.partition(", bias=")
            s = head + f", output_padding={self.output_padding}" + sep + tail
        return s


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-D convolution of (N, C_in, L) or (C_in, L): weight
    (C_in, C_out / groups, k)."""

    _n, _function = 1, "conv_transpose1d"


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution of (N, C_in, H, W) or (C_in, H, W): weight
    (C_in, C_out / groups, kh, kw)."""

    _n, _function = 2, "conv_transpose2d"


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-D convolution of (N, C_in, D, H, W) or (C_in, D, H, W): weight
    (C_in, C_out / groups, kd, kh, kw)."""

    _n, _function = 3, "conv_transpose3d"


class _LazyConvXdMixin(LazyModuleMixin):
    """What the lazy convolutions share: ``in_channels`` from the first input's channel dim
    (dim 1, or dim 0 unbatched), then torch's initialisation of the eager class."""

    in_channels: int
    out_channels: int
    groups: int
    kernel_size: tuple
    _n: int
    _transposed: bool
    weight: Any
    bias: Any

    def _lazy_init(self, bias: bool, dtype: Any) -> None:
        self.weight = self._uninitialized_parameter(dtype)
        if bias:
            self.bias = self._uninitialized_parameter(dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()  # type: ignore[misc]

    def initialize_parameters(self, input: Any, *args: Any, **kwargs: Any) -> None:
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self._transposed:
                shape = (self.in_channels, self.out_channels // self.groups)
            else:
                shape = (self.out_channels, self.in_channels // self.groups)
            self.weight.materialize(shape + tuple(self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input: Any) -> int:
        unbatched = self._n + 1
        if input.ndim not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) "
                               f"input to {type(self).__name__}, but got input of size: "
                               f"{input.shape}")
        return int(input.shape[1] if input.ndim == unbatched + 1 else input.shape[0])


class _LazyConvNd(_LazyConvXdMixin, _ConvNd):
    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        check_device(device)
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, dtype=dtype)
        self.out_channels = int(out_channels)
        self._lazy_init(bias, dtype)


class _LazyConvTransposeNd(_LazyConvXdMixin, _ConvTransposeNd):
    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        check_device(device)
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, dtype=dtype)
        self.out_channels = int(out_channels)
        self._lazy_init(bias, dtype)


class LazyConv1d(_LazyConvNd, Conv1d):
    """A Conv1d whose ``in_channels`` comes from its first input (becomes a Conv1d then)."""


class LazyConv2d(_LazyConvNd, Conv2d):
    """A Conv2d whose ``in_channels`` comes from its first input (becomes a Conv2d then)."""


class LazyConv3d(_LazyConvNd, Conv3d):
    """A Conv3d whose ``in_channels`` comes from its first input (becomes a Conv3d then)."""


class LazyConvTranspose1d(_LazyConvTransposeNd, ConvTranspose1d):
    """A ConvTranspose1d whose ``in_channels`` comes from its first input."""


class LazyConvTranspose2d(_LazyConvTransposeNd, ConvTranspose2d):
    """A ConvTranspose2d whose ``in_channels`` comes from its first input."""


class LazyConvTranspose3d(_LazyConvTransposeNd, ConvTranspose3d):
    """A ConvTranspose3d whose ``in_channels`` comes from its first input."""
