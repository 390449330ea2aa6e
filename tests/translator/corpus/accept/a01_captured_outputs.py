"""Capturing outputs: saved as outputs (without grad_fn), never as intermediates."""

from transgrad.lang import Tensor, formula, kernel, ops


# captures: result:output
@formula
def exp(x: Tensor) -> Tensor:
    result = kernel.exp(x)

    def backward(grad):
        return grad * result

    return result, backward


# captures: result:output
@formula
def sigmoid(x: Tensor) -> Tensor:
    result = kernel.sigmoid(x)

    def backward(grad):
        return grad * result * (1.0 - result)

    return result, backward


# captures: x:input result:output
@formula
def sqrt_ratio(x: Tensor) -> Tensor:
    result = kernel.div(kernel.sqrt(x), x)

    def backward(grad):
        return grad * (-0.5) * result / x

    return result, backward


# captures: none
@formula
def neg(x: Tensor) -> Tensor:
    result = kernel.neg(x)

    def backward(grad):
        return ops.neg(grad)

    return result, backward
