"""Helpers: module-level functions called from forward and backward (ops-only in backward)."""

from transgrad.lang import Dims, Shape, Tensor, formula, helper, kernel, ops


@helper
def normalize_dims(dims: Dims, ndim: int) -> Dims:
    out = ()
    for d in dims:
        out = out + ((d + ndim if d < 0 else d),)
    return out


@helper
def keep_shape(shape: Shape, dims: Dims) -> Shape:
    out = ()
    for i in range(len(shape)):
        out = out + ((1 if i in dims else shape[i]),)
    return out


@helper
def expand_back(grad: Tensor, kept: Shape, shape: Shape) -> Tensor:
    return ops.expand(ops.reshape(grad, kept), shape)


# captures: kept:attribute:Shape x:input:meta=shape
@formula
def amax_dims(x: Tensor, dims: Dims) -> Tensor:
    rdims = normalize_dims(dims, x.ndim)
    kept = keep_shape(x.shape, rdims)
    result = kernel.amax(x, rdims, False)

    def backward(grad):
        return expand_back(grad, kept, x.shape)

    return result, backward
