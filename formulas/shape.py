"""Shape formulas: views (reshape, expand, permute, transpose, unsqueeze, squeeze, diagonal
<-> diagonal_scatter), copies
(contiguous, clone), joins (cat, stack), and the creation composites backwards use for zeros.

Backwards undo the shape change with another op of this family (reshape <-> reshape, expand ->
sum_to, permute -> inverse permute, cat -> slices, stack -> selects), so they are differentiable
again. They read only the input's metadata: no input tensor is saved.
"""

from transgrad.lang import (
    Dims,
    DType,
    Optional,
    Sequence,
    Shape,
    T,
    Tensor,
    case,
    formula,
    helper,
    kernel,
    ops,
    samples,
)

# ---------------------------------------------------------------------------------------------
# Helpers on dims and shapes (non-tensor values, saved as attributes)


@helper
def inverse_permutation(dims: Dims, ndim: int) -> Dims:
    """``inv`` such that permuting by ``dims`` then by ``inv`` is the identity."""
    out = ()
    for i in range(ndim):
        for j in range(len(dims)):
            if (dims[j] + ndim if dims[j] < 0 else dims[j]) == i:
                out = out + (j,)
    return out


@helper
def size_one_dims(shape: Shape) -> Dims:
    """The dims of ``shape`` that have size 1 (what ``squeeze()`` removes)."""
    out = ()
    for i in range(len(shape)):
        if shape[i] == 1:
            out = out + (i,)
    return out


@helper
def cat_bounds(tensors: Sequence[Tensor], dim: int) -> Shape:
    """Where each input of ``cat`` starts along ``dim``, then the total: (0, n0, n0 + n1, ...)."""
    out = (0,)
    for i in range(len(tensors)):
        out = out + (out[i] + tensors[i].shape[dim],)
    return out


# ---------------------------------------------------------------------------------------------
# Creation (not differentiable: the outputs do not depend on any input's values)


@samples(case((2, 3), "float64"))
@formula
def zeros(shape: Shape, dtype: DType) -> Tensor:
    return kernel.full(shape, 0.0, dtype)


@samples(T(2, 3))
@formula
def zeros_like(x: Tensor) -> Tensor:
    return kernel.zeros_like(x)


@samples(T(2, 3))
@formula
def ones_like(x: Tensor) -> Tensor:
    return kernel.ones_like(x)


# ---------------------------------------------------------------------------------------------
# Views


@samples(case(T(3, 4), (4, 3)), case(T(2, 3, 4), (-1, 4)), case(T(6), (2, 1, 3)))
@formula
def reshape(x: Tensor, shape: Shape) -> Tensor:
    result = kernel.reshape(x, shape)

    def backward(grad):
        return ops.reshape(grad, x.shape)

    return result, backward


@samples(case(T(3, 1), (3, 4)), case(T(1, 4), (2, 3, -1)), case(T(), (2, 2)))
@formula
def expand(x: Tensor, shape: Shape) -> Tensor:
    result = kernel.expand(x, shape)

    def backward(grad):
        return ops.sum_to(grad, x.shape)

    return result, backward


@samples(case(T(2, 3, 4), (2, 0, 1)), case(T(2, 3, 4), (-1, 0, -2)), case(T(3, 4), (1, 0)))
@formula
def permute(x: Tensor, dims: Dims) -> Tensor:
    inverse = inverse_permutation(dims, x.ndim)
    result = kernel.permute(x, dims)

    def backward(grad):
        return ops.permute(grad, inverse)

    return result, backward


@samples(case(T(3, 4), 0, 1), case(T(2, 3, 4), -1, 0))
@formula
def transpose(x: Tensor, dim0: int, dim1: int) -> Tensor:
    result = kernel.transpose(x, dim0, dim1)

    def backward(grad):
        return ops.transpose(grad, dim0, dim1)

    return result, backward


@samples(T(3, 4), T(1, 5))
@formula
def t(x: Tensor) -> Tensor:
    """torch.t of a matrix: its transpose (a view). A formula of its own, not ``transpose``,
    so that ``x.t()`` records torch's node, TBackward0."""
    result = kernel.transpose(x, 0, 1)

    def backward(grad):
        return ops.t(grad)

    return result, backward


@samples(case(T(3, 4), 0), case(T(3, 4), -1), case(T(3, 4), 1))
@formula
def unsqueeze(x: Tensor, dim: int) -> Tensor:
    result = kernel.unsqueeze(x, dim)

    def backward(grad):
        return ops.reshape(grad, x.shape)

    return result, backward


@samples(T(3, 1, 4, 1), case(T(3, 1, 4, 1), (-1,)), case(T(1, 3), (0, 1)))
@formula
def squeeze(x: Tensor, dims: Optional[Dims] = None) -> Tensor:
    result = kernel.squeeze(x, size_one_dims(x.shape) if dims is None else dims)

    def backward(grad):
        return ops.reshape(grad, x.shape)

    return result, backward


@samples(case(T(3, 4), 0, 0, 1), case(T(3, 4), 1, 0, 1), case(T(2, 3, 4), -1, 2, 0))
@formula
def diagonal(x: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    result = kernel.diagonal(x, offset, dim1, dim2)

    def backward(grad):
        return ops.diagonal_scatter(ops.zeros(x.shape, grad.dtype), grad, offset, dim1, dim2)

    return result, backward


@samples(case(T(3, 4), T(3), 0, 0, 1), case(T(3, 4), T(2), -1, 0, 1))
@formula
def diagonal_scatter(x: Tensor, source: Tensor, offset: int = 0, dim1: int = 0,
                     dim2: int = 1) -> Tensor:
    result = kernel.diagonal_scatter(x, source, offset, dim1, dim2)

    def backward(grad):
        hole = ops.zeros(source.shape, grad.dtype)
        return (ops.diagonal_scatter(grad, hole, offset, dim1, dim2),
                ops.diagonal(grad, offset, dim1, dim2))

    return result, backward


# ---------------------------------------------------------------------------------------------
# Copies


@samples(T(3, 4))
@formula
def contiguous(x: Tensor) -> Tensor:
    result = kernel.contiguous(x)

    def backward(grad):
        return grad

    return result, backward


@samples(T(3, 4))
@formula
def clone(x: Tensor) -> Tensor:
    result = kernel.clone(x)

    def backward(grad):
        return grad

    return result, backward


# ---------------------------------------------------------------------------------------------
# Joins. Their backwards build one tensor per input: a loop is unavoidable there.


@samples(case([T(2, 3), T(4, 3)]), case([T(2, 3), T(2, 1), T(2, 2)], -1), case([T(3)], 0))
@formula
def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    result = kernel.cat(tensors, dim)
    bounds = cat_bounds(tensors, dim)

    def backward(grad):
        return [ops.slice(grad, dim, bounds[i], bounds[i + 1], 1) for i in range(len(bounds) - 1)]

    return result, backward


@samples(case([T(2, 3), T(2, 3)]), case([T(2, 3), T(2, 3), T(2, 3)], -1), case([T(3)], 1))
@formula
def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    result = kernel.stack(tensors, dim)

    def backward(grad):
        return [ops.select(grad, dim, i) for i in range(grad.shape[dim])]

    return result, backward
