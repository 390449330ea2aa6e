"""Shapes computed in the forward from metadata only are non-tensor attributes."""

from transgrad.lang import Dims, Tensor, formula, kernel, ops


# captures: kept:attribute:Shape x:input:meta=shape
@formula
def sum_keep(x: Tensor, dims: Dims) -> Tensor:
    kept = tuple(1 if i in dims or i - x.ndim in dims else x.shape[i] for i in range(x.ndim))
    result = kernel.sum(x, dims, False)

    def backward(grad):
        return ops.expand(ops.reshape(grad, kept), x.shape)

    return result, backward


# captures: count:attribute:int
@formula
def mean_all(x: Tensor) -> Tensor:
    count = max(x.numel, 1)
    result = kernel.div(kernel.sum(x, tuple(range(x.ndim)), False),
                        kernel.scalar_like(x, float(count)))
    rows = len(x.shape) * 2 - x.ndim

    def backward(grad):
        return grad / count

    return result, backward


# captures: flat:attribute:Shape shape:attribute:Shape
@formula
def flatten_last(x: Tensor) -> Tensor:
    shape = x.shape
    flat = shape[:-2] + (shape[-2] * shape[-1],)
    result = kernel.reshape(x, flat)

    def backward(grad):
        return ops.reshape(grad, shape) if len(flat) > 0 else grad

    return result, backward
