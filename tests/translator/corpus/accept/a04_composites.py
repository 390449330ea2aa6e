"""Composite formulas: no backward; autograd records the inner ops. Nothing is captured."""

import math

from transgrad.lang import Optional, Tensor, formula, ops


# composite
@formula
def softplus(x: Tensor, beta: float = 1.0) -> Tensor:
    return ops.log1p(ops.exp(x * beta)) / beta


# composite
@formula
def linear(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    out = ops.matmul(x, ops.transpose(weight, 0, 1))
    if bias is None:
        return out
    return out + bias


# composite
@formula
def gaussian(x: Tensor, sigma: float = 1.0) -> Tensor:
    scale = 1.0 / (sigma * math.sqrt(2.0 * math.pi))
    return ops.exp(x * x * (-0.5 / (sigma * sigma))) * scale
