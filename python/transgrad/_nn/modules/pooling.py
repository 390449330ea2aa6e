"""Engine-neutral pooling (torch.nn.modules.pooling).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

from typing import Any

from .. import functional as F
from ..module import Module


class _MaxPoolNd(Module):
    """What the max-pooling layers share: torch's options (``stride`` defaults to
    ``kernel_size``) and printed form."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool2d(_MaxPoolNd):
    """Max over (kh, kw) windows; ``stride`` defaults to ``kernel_size``."""

    def forward(self, x: Any) -> Any:
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


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


class MaxPool1d(_MaxPoolNd):
    """Max over windows of (N, C, L) or (C, L); ``stride`` defaults to ``kernel_size``."""

    def forward(self, x: Any) -> Any:
        return F.max_pool1d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class MaxPool3d(_MaxPoolNd):
    """Max over (kd, kh, kw) windows of (N, C, D, H, W) or (C, D, H, W)."""

    def forward(self, x: Any) -> Any:
        return F.max_pool3d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class _AdaptiveMaxPoolNd(Module):
    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, L) or (C, L) to a fixed ``output_size``."""

    def forward(self, x: Any) -> Any:
        return F.adaptive_max_pool1d(x, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, H, W) or (C, H, W) to a fixed ``output_size`` (an int or a pair;
    None keeps that dim)."""

    def forward(self, x: Any) -> Any:
        return F.adaptive_max_pool2d(x, self.output_size, self.return_indices)


class AvgPool1d(Module):
    """Mean over windows of (N, C, L) or (C, L); ``stride`` defaults to ``kernel_size``."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(kernel_size if stride is None else stride)
        self.padding = _single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, x: Any) -> Any:
        return F.avg_pool1d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


def _single(v: Any) -> tuple:
    return (int(v),) if isinstance(v, int) else tuple(int(i) for i in v)


class AvgPool3d(AvgPool2d):
    """Mean over (kd, kh, kw) windows of (N, C, D, H, W) or (C, D, H, W)."""

    def forward(self, x: Any) -> Any:
        return F.avg_pool3d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    """Average pooling of (N, C, L) or (C, L) to a fixed ``output_size``."""

    def forward(self, x: Any) -> Any:
        return F.adaptive_avg_pool1d(x, self.output_size)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    """Average pooling of (N, C, D, H, W) or (C, D, H, W) to a fixed ``output_size``."""

    def forward(self, x: Any) -> Any:
        return F.adaptive_avg_pool3d(x, self.output_size)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, D, H, W) or (C, D, H, W) to a fixed ``output_size``."""

    def forward(self, x: Any) -> Any:
        return F.adaptive_max_pool3d(x, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    """What the unpooling layers share: torch's options as n-tuples (``stride`` defaults to
    ``kernel_size``) and printed form."""

    dims = 0

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        n = self.dims
        self.kernel_size = F._ntuple(kernel_size, n)
        self.stride = F._ntuple(kernel_size if stride is None else stride, n)
        self.padding = F._ntuple(padding, n)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of MaxPool1d (its values and indices)."""

    dims = 1

    def forward(self, x: Any, indices: Any, output_size: Any = None) -> Any:
        return F.max_unpool1d(x, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d (its values and indices)."""

    dims = 2

    def forward(self, x: Any, indices: Any, output_size: Any = None) -> Any:
        return F.max_unpool2d(x, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of MaxPool3d (its values and indices)."""

    dims = 3

    def forward(self, x: Any, indices: Any, output_size: Any = None) -> Any:
        return F.max_unpool3d(x, indices, self.kernel_size, self.stride, self.padding,
                              output_size)
