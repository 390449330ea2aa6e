"""A tensor the backward reads only through shape/ndim/dtype/numel is saved as metadata."""

from transgrad.lang import DType, Shape, Tensor, formula, kernel, ops


# captures: x:input:meta=shape
@formula
def expand_to(x: Tensor, shape: Shape) -> Tensor:
    result = kernel.expand(x, shape)

    def backward(grad):
        return ops.sum_to(grad, x.shape)

    return result, backward


# captures: x:input:meta=dtype
@formula
def cast(x: Tensor, dtype: DType) -> Tensor:
    result = kernel.cast(x, dtype)

    def backward(grad):
        return ops.cast(grad, x.dtype)

    return result, backward


# captures: x:input:meta=ndim,numel,shape
@formula
def flatten(x: Tensor) -> Tensor:
    result = kernel.reshape(x, (x.numel,))

    def backward(grad):
        if x.ndim == 0 or x.numel == 0:
            return ops.reshape(grad, x.shape)
        return ops.reshape(grad, x.shape)

    return result, backward


# captures: result:output:meta=shape x:input
@formula
def abs_scaled(x: Tensor) -> Tensor:
    result = kernel.abs(x)

    def backward(grad):
        return ops.reshape(grad * ops.sign(x), result.shape)

    return result, backward
