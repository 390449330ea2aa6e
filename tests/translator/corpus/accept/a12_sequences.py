"""Sequence[Tensor] parameters; a list of grads; sizes read from metadata."""

from transgrad.lang import Sequence, Shape, Tensor, formula, helper, kernel, ops


@helper
def cat_bounds(tensors: Sequence[Tensor], dim: int) -> Shape:
    out = (0,)
    for t in tensors:
        out = out + (out[len(out) - 1] + t.shape[dim],)
    return out


# captures: dim:attribute:int bounds:attribute:Shape
@formula
def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    result = kernel.cat(tensors, dim)
    bounds = cat_bounds(tensors, dim)

    def backward(grad):
        return [ops.slice(grad, dim, bounds[i], bounds[i + 1], 1) for i in range(len(bounds) - 1)]

    return result, backward


# captures: n:attribute:int dim:attribute:int
@formula
def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    result = kernel.stack(tensors, dim)
    n = len(tensors)

    def backward(grad):
        return [ops.select(grad, dim, i) for i in range(n)]

    return result, backward
