"""Engine-neutral activation layers (torch.nn.modules.activation).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

from typing import Any

from .. import functional as F
from ..module import Module, dtype_arg


def _inplace_repr(inplace: bool) -> str:
    return "inplace=True" if inplace else ""


class ReLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, x: Any) -> Any:
        return F.relu(x, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Tanh(Module):
    def forward(self, x: Any) -> Any:
        return F.tanh(x)


class Sigmoid(Module):
    def forward(self, x: Any) -> Any:
        return F.sigmoid(x)


class _Inplace(Module):
    """An activation whose only option is torch's ``inplace`` flag."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class SiLU(_Inplace):
    def forward(self, x: Any) -> Any:
        return F.silu(x, self.inplace)


class Mish(_Inplace):
    def forward(self, x: Any) -> Any:
        return F.mish(x, self.inplace)


class Hardswish(_Inplace):
    def forward(self, x: Any) -> Any:
        return F.hardswish(x, self.inplace)

    def extra_repr(self) -> str:
        return ""  # torch prints no options for this layer


class Hardsigmoid(_Inplace):
    def forward(self, x: Any) -> Any:
        return F.hardsigmoid(x, self.inplace)

    def extra_repr(self) -> str:
        return ""  # torch prints no options for this layer


class SELU(_Inplace):
    def forward(self, x: Any) -> Any:
        return F.selu(x, self.inplace)


class GELU(Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: Any) -> Any:
        return F.gelu(x, approximate=self.approximate)

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


class _Alpha(Module):
    """An activation with torch's ``alpha`` and ``inplace`` options."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class ELU(_Alpha):
    def forward(self, x: Any) -> Any:
        return F.elu(x, self.alpha, self.inplace)


class CELU(_Alpha):
    def forward(self, x: Any) -> Any:
        return F.celu(x, self.alpha, self.inplace)


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, x: Any) -> Any:
        return F.leaky_relu(x, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace
                                                          else "")


class PReLU(Module):
    """Leaky ReLU with a learned slope ``weight`` of ``num_parameters`` entries (1, or one per
    channel), all ``init`` at the start."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        m, dt = self._E.module, dtype_arg(self._E, dtype)
        self.weight = self.Parameter(m.full((num_parameters,), float(init), dtype=dt))

    def reset_parameters(self) -> None:
        self._E.assign_(self.weight, self._E.module.full_like(self.weight, float(self.init)))

    def forward(self, x: Any) -> Any:
        return F.prelu(x, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Hardtanh(Module):
    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
                 ) -> None:
        super().__init__()
        if min_val > max_val:
            raise ValueError("min_val cannot be greater than max_val")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, x: Any) -> Any:
        return F.hardtanh(x, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return (f"min_val={self.min_val}, max_val={self.max_val}"
                + (", inplace=True" if self.inplace else ""))


class ReLU6(Hardtanh):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value``."""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, x: Any) -> Any:
        return F.threshold(x, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return (f"threshold={self.threshold}, value={self.value}"
                + (", inplace=True" if self.inplace else ""))


class Softsign(Module):
    def forward(self, x: Any) -> Any:
        return F.softsign(x)


class LogSigmoid(Module):
    def forward(self, x: Any) -> Any:
        return F.logsigmoid(x)


class Tanhshrink(Module):
    def forward(self, x: Any) -> Any:
        return F.tanhshrink(x)


class Hardshrink(Module):
    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, x: Any) -> Any:
        return F.hardshrink(x, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    def forward(self, x: Any) -> Any:
        return F.softshrink(x, self.lambd)


class GLU(Module):
    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: Any) -> Any:
        return F.glu(x, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class _Dim(Module):
    """A softmax-like layer along ``dim`` (None: torch's deprecated implicit choice, with its
    warning)."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_Dim):
    def forward(self, x: Any) -> Any:
        return F.softmax(x, self.dim, _stacklevel=5)


class LogSoftmax(Softmax):
    def forward(self, x: Any) -> Any:
        return F.log_softmax(x, self.dim, _stacklevel=5)


class Softmin(_Dim):
    def forward(self, x: Any) -> Any:
        return F.softmin(x, self.dim, _stacklevel=5)


class Softmax2d(Module):
    """Softmax over the channels (dim -3) of (N, C, H, W) or (C, H, W)."""

    def forward(self, x: Any) -> Any:
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {x.ndim}D instead")
        return F.softmax(x, -3, _stacklevel=5)
