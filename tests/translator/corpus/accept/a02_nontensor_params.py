"""Non-tensor parameters are saved attributes; Optional parameters keep their type."""

from transgrad.lang import Optional, Scalar, Tensor, formula, kernel, ops


# captures: exponent:attribute:float x:input
@formula
def pow_scalar(x: Tensor, exponent: float) -> Tensor:
    result = kernel.pow_scalar(x, exponent)

    def backward(grad):
        return grad * exponent * ops.pow_scalar(x, exponent - 1.0)

    return result, backward


# captures: x:input low:attribute:Optional[float] high:attribute:Optional[float]
@formula
def clamp(x: Tensor, low: Optional[float] = None, high: Optional[float] = None) -> Tensor:
    result = kernel.clamp(x, low, high)

    def backward(grad):
        keep = ops.ones_like(x)
        if low is not None:
            keep = keep * (x >= low)
        if high is not None:
            keep = keep * (x <= high)
        return grad * keep

    return result, backward


# captures: alpha:attribute:Scalar other:input
@formula
def add_scaled(x: Tensor, other: Tensor, alpha: Scalar = 1) -> Tensor:
    result = kernel.add(x, kernel.mul(other, kernel.scalar_like(other, alpha)))

    def backward(grad):
        return grad, grad * alpha + 0.0 * other

    return result, backward
