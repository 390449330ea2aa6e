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


@helper
def strided_end(size: Shape, stride: Shape, offset: int) -> int:
    """One past the last storage position a geometry reads (its offset when it has none)."""
    last = offset
    empty = False
    for i in range(len(size)):
        if size[i] == 0:
            empty = True
        else:
            last = last + (size[i] - 1) * stride[i]
    return offset if empty else last + 1


@helper
def is_dense_geometry(size: Shape, stride: Shape) -> bool:
    """Whether a geometry is row-major contiguous (size-1 dims' strides ignored): then no two of
    its elements share a storage position."""
    expected = 1
    dense = True
    for j in range(len(size)):
        i = len(size) - 1 - j
        if size[i] != 1:
            if stride[i] != expected:
                dense = False
            expected = expected * size[i]
    return dense


@samples(case(T(12), (3, 3), (3, 1), 1, (1,), 0), case(T(5), (3, 3), (1, 1), 0, (1,), 0),
         case(T(3, 4), (4, 3), (1, 4), 0, (4, 1), 0), case(T(4), (2, 2), (0, 2), 1, (1,), 0))
@formula
def as_strided(x: Tensor, size: Shape, stride: Shape, storage_offset: int, input_stride: Shape,
               input_offset: int) -> Tensor:
    """torch.as_strided: a view of x's storage with sizes ``size``, strides ``stride`` and offset
    ``storage_offset`` (in elements; kernel.as_strided checks the storage holds them).
    ``input_stride`` and ``input_offset`` are x's own geometry, through which the backward reads
    the gradient back (the front end passes them: a formula sees x's shape only)."""
    result = kernel.as_strided(x, size, stride, storage_offset)

    def backward(grad):
        return ops.as_strided_backward(grad, x.shape, input_stride, input_offset, size, stride,
                                       storage_offset)

    return result, backward


@samples(case(T(3, 3), (5,), (1,), 0, (3, 3), (1, 1), 0),
         case(T(2, 3), (3, 2), (1, 3), 0, (2, 3), (3, 1), 0),
         case(T(2, 2), (3, 2), (0, 1), 1, (2, 2), (1, 2), 0))
@formula
def as_strided_backward(grad: Tensor, input_size: Shape, input_stride: Shape, input_offset: int,
                        size: Shape, stride: Shape, storage_offset: int) -> Tensor:
    """as_strided's gradient, as torch computes it: ``grad`` scattered through the output's
    geometry into a zero buffer shaped as the storage both geometries reach (outputs that share
    a position accumulate), then read back through the input's geometry; where the input's own
    elements share positions (an expanded input), each reads its position's sum divided by the
    number of input elements there, so the gradient is not counted twice. Made of ops, so it is
    differentiable again (gradgradcheck)."""
    low = input_offset if input_offset < storage_offset else storage_offset
    end_in = strided_end(input_size, input_stride, input_offset)
    end_out = strided_end(size, stride, storage_offset)
    n = (end_in if end_in > end_out else end_out) - low
    out_at = kernel.reshape(kernel.strided_positions(size, stride, storage_offset - low), (-1,))
    in_at = kernel.reshape(kernel.strided_positions(input_size, input_stride, input_offset - low),
                           (-1,))
    storage = ops.index_add(ops.zeros((n,), grad.dtype), 0, out_at, ops.reshape(grad, (-1,)))
    result = ops.reshape(ops.index_select(storage, 0, in_at), input_size)
    if is_dense_geometry(input_size, input_stride):
        return result
    hits = kernel.index_add(kernel.full((n,), 0.0, grad.dtype), 0, in_at,
                            kernel.full((in_at.shape[0],), 1.0, grad.dtype))
    return ops.div(result, kernel.reshape(kernel.index_select(hits, 0, in_at), input_size))


# ---------------------------------------------------------------------------------------------
# Copies


@helper
def repeat_split_shape(shape: Shape, repeats: Shape, tiled: bool) -> Shape:
    """``shape`` padded with leading 1s to ``len(repeats)`` dims, each dim preceded by its repeat
    count (``tiled``) or by 1: (r0, s0, r1, s1, ...) or (1, s0, 1, s1, ...)."""
    out = ()
    pad = len(repeats) - len(shape)
    for i in range(len(repeats)):
        out = out + ((repeats[i] if tiled else 1), (1 if i < pad else shape[i - pad]))
    return out


@helper
def repeat_shape(shape: Shape, repeats: Shape) -> Shape:
    """The shape of ``x.repeat(*repeats)``: each (padded) dim times its repeat count."""
    out = ()
    pad = len(repeats) - len(shape)
    for i in range(len(repeats)):
        out = out + (repeats[i] * (1 if i < pad else shape[i - pad]),)
    return out


@helper
def even_dims(n: int) -> Dims:
    """(0, 2, ..., 2n - 2): the repeat-count dims of repeat_split_shape's tiled shape."""
    out = ()
    for i in range(n):
        out = out + (2 * i,)
    return out


# torch's x.repeat records one RepeatBackward0 (it was reshape, expand, reshape: three nodes);
# the gradient sums the copies: grad viewed as (r0, s0, r1, s1, ...) summed over the r dims.
@samples(case(T(2, 3), (2, 1)), case(T(2, 3), (2, 1, 3)), case(T(4), (3,)), case(T(), (2, 2)))
@formula
def repeat(x: Tensor, repeats: Shape) -> Tensor:
    """``x`` tiled ``repeats`` times along each dim (``len(repeats) >= x.ndim``; leading dims
    are new)."""
    tiled = repeat_split_shape(x.shape, repeats, True)
    result = kernel.reshape(kernel.expand(kernel.reshape(
        x, repeat_split_shape(x.shape, repeats, False)), tiled), repeat_shape(x.shape, repeats))

    def backward(grad):
        return ops.reshape(ops.sum(ops.reshape(grad, tiled), even_dims(len(repeats))), x.shape)

    return result, backward


@samples(T(3, 4))
@formula
def contiguous(x: Tensor) -> Tensor:
    result = kernel.contiguous(x)

    def backward(grad):
        return grad

    return result, backward


# `order` lays the copy out with its dims in that order, outermost first (torch's preserve_format
# of a dense non-contiguous x: _api/memory_formats.py), still one CloneBackward0 node as torch's.
@samples(T(3, 4), case(T(3, 4), (1, 0)), case(T(2, 3, 4), (2, 0, 1)))
@formula
def clone(x: Tensor, order: Optional[Dims] = None) -> Tensor:
    result = kernel.clone(x) if order is None else kernel.permute(
        kernel.clone(kernel.permute(x, order)), inverse_permutation(order, x.ndim))

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
