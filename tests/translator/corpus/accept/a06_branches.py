"""Branches on parameters: a name bound once on each path is bound once."""

from transgrad.lang import Dims, Optional, Tensor, formula, kernel, ops


# captures: rdims:attribute:Shape x:input:meta=ndim,shape keepdim:attribute:bool
@formula
def sum_dims(x: Tensor, dims: Optional[Dims] = None, keepdim: bool = False) -> Tensor:
    if dims is None:
        rdims = tuple(range(x.ndim))
    elif len(dims) == 0:
        rdims = ()
    else:
        rdims = tuple(d % x.ndim for d in dims)
    result = kernel.sum(x, rdims, keepdim)

    def backward(grad):
        if keepdim or x.ndim == 0:
            return ops.expand(grad, x.shape)
        g = grad
        for d in rdims:
            g = ops.unsqueeze(g, d)
        return ops.expand(g, x.shape)

    return result, backward


# captures: weight:input target:input x:input
@formula
def weighted_mse(x: Tensor, target: Tensor, weight: Optional[Tensor] = None) -> Tensor:
    diff = kernel.sub(x, target)
    sq = kernel.mul(diff, diff)
    result = sq if weight is None else kernel.mul(sq, weight)

    def backward(grad):
        g = grad * 2.0 * (x - target)
        if weight is not None:
            g = g * weight
        return g, ops.neg(g), None

    return result, backward
