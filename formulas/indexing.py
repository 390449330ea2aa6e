"""Indexing and layout formulas of torch's derivative table (issue 15): take, index_fill,
index_copy, unfold, rot90, diag_embed, block_diag (composites), scatter / scatter_value,
masked_select / masked_scatter (kernels in csrc/kernels/scatter.cpp).

Stage: formulas (the composites' inner ops, and the backwards, are adjoint pairs --
index_select/index_add, slice/slice_scatter, diagonal/diagonal_scatter, flip, pad -- so every
derivative order exists). Index tensors are int64 (negative entries wrap) and get no gradient.
"""

from transgrad.lang import (
    B,
    Dims,
    I,
    Sequence,
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
# Index tensors


@samples(case(T(3, 4), I(5, high=12)), case(T(2, 3, 2), I(2, 3, high=12)), case(T(5), I(high=5)))
@formula
def take(x: Tensor, index: Tensor) -> Tensor:
    """torch.take: the elements of x seen as 1-D, at ``index``; the result has index's shape."""
    flat = ops.index_select(ops.reshape(x, (-1,)), 0, ops.reshape(index, (-1,)))
    return ops.reshape(flat, index.shape)


@helper
def index_hits(x: Tensor, dim: int, index: Tensor) -> Tensor:
    """How many times ``index`` (0-d or 1-D) names each slice of x along ``dim``, shaped to
    broadcast against x."""
    size = x.shape[dim] if x.ndim > 0 else 1
    at = dim + x.ndim if dim < 0 else dim
    flat = ops.reshape(index, (-1,))
    ones = ops.zeros(flat.shape, x.dtype) + 1.0
    hits = ops.index_add(ops.zeros((size,), x.dtype), 0, flat, ones)
    return ops.reshape(hits, tuple((size if i == at else 1) for i in range(x.ndim)))


@samples(case(T(5, 3), 0, I(2, high=5), 1.5), case(T(3, 6), -1, I(4, high=6), -2.0),
         case(T(2, 3, 4), 1, I(high=3), 0.0))
@formula
def index_fill(x: Tensor, dim: int, index: Tensor, value: float) -> Tensor:
    """x with the slices of ``dim`` named by ``index`` set to ``value`` (no gradient there)."""
    filled = index_hits(x, dim, index) > 0.0
    return ops.where(filled, ops.zeros_like(x) + value, x)


@samples(case(T(5, 3), 0, I(1, high=5), T(1, 3)), case(T(3, 6), -1, I(1, high=6), T(3, 1)))
@formula
def index_copy(x: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """x with its slices ``index[i]`` along ``dim`` replaced by source's slice i. An index named
    twice raises: which copy would win is undefined (torch's result is nondeterministic)."""
    hits = index_hits(x, dim, index)
    if kernel.item(kernel.amax(kernel.reshape(hits, (-1,)), (0,), False)) > 1.0:
        raise RuntimeError("index_copy(): index contains duplicate entries")
    kept = ops.where(hits > 0.0, ops.zeros_like(x), x)
    return ops.index_add(kept, dim, index, source)


# ---------------------------------------------------------------------------------------------
# Windows and layouts


@samples(case(T(7), 0, 3, 2), case(T(2, 6, 3), 1, 2, 1), case(T(4, 5), -1, 5, 1),
         case(T(3, 4), 0, 2, 3))
@formula
def unfold(x: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Tensor.unfold: the windows of ``size`` along ``dimension``, ``step`` apart; that dim
    becomes the window count and a last dim of ``size`` is added (a copy here, not a view)."""
    d = dimension + x.ndim if dimension < 0 else dimension
    extent = x.shape[d] if x.ndim > 0 else 1
    if size > extent:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {extent} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    count = (extent - size) // step + 1
    windows = [ops.slice(x, d, i * step, i * step + size, 1) for i in range(count)]
    stacked = ops.stack(windows, d)  # (..., count, size at d + 1, ...)
    order = tuple(i for i in range(x.ndim + 1) if i != d + 1) + (d + 1,)
    return ops.permute(stacked, order)


@samples(case(T(3, 4)), case(T(3, 4), 2), case(T(2, 3, 4), 3, (1, 2)), case(T(3, 4), -1, (1, 0)))
@formula
def rot90(x: Tensor, k: int = 1, dims: Dims = (0, 1)) -> Tensor:
    """Rotate by 90 degrees ``k`` times in the plane of ``dims``, from the first toward the
    second (a flip and a transpose)."""
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if x.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {x.ndim}")
    turns = k % 4
    if turns == 1:
        return ops.transpose(ops.flip(x, (dims[1],)), dims[0], dims[1])
    if turns == 2:
        return ops.flip(x, dims)
    if turns == 3:
        return ops.transpose(ops.flip(x, (dims[0],)), dims[0], dims[1])
    return ops.clone(x)


@samples(case(T(3)), case(T(2, 3), 1), case(T(2, 3), -1, 0, 2), case(T(4), 0, 0, 1))
@formula
def diag_embed(x: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """A tensor whose diagonal (``offset``) in the plane (``dim1``, ``dim2``) holds x's last dim;
    zeros elsewhere."""
    ndim = x.ndim + 1
    d1 = dim1 + ndim if dim1 < 0 else dim1
    d2 = dim2 + ndim if dim2 < 0 else dim2
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = x.shape[-1] + (offset if offset >= 0 else -offset)
    shape = ()
    rest = 0
    for i in range(ndim):
        if i == d1 or i == d2:
            shape = shape + (n,)
        else:
            shape = shape + (x.shape[rest],)
            rest = rest + 1
    return ops.diagonal_scatter(ops.zeros(shape, x.dtype), x, offset, d1, d2)


@helper
def placed_block(t: Tensor, left: int, total: int) -> Tensor:
    """``t`` as a matrix (0-d and 1-D as one row), zero-padded to ``total`` columns with ``left``
    zero columns before it."""
    block = t if t.ndim == 2 else ops.reshape(t, (1, -1))
    return ops.pad(block, (left, total - left - block.shape[1]), 0.0)


@samples(case([T(2, 3), T(1, 2)]), case([T(2), T(), T(2, 2)]), case([T(3, 1)]))
@formula
def block_diag(tensors: Sequence[Tensor]) -> Tensor:
    """torch.block_diag: the tensors (0-d, 1-D as a row, or 2-D) on the diagonal of a matrix."""
    lefts = ()
    total = 0
    for t in tensors:
        if t.ndim > 2:
            raise RuntimeError(f"block_diag: tensors must have 2 or fewer dimensions, got {t.ndim}")
        lefts = lefts + (total,)
        total = total + (t.shape[-1] if t.ndim > 0 else 1)
    rows = [placed_block(tensors[j], lefts[j], total) for j in range(len(tensors))]
    return ops.cat(rows, 0)


# ---------------------------------------------------------------------------------------------
# Scatter copies and masked copies (pairs: masked_select <-> masked_scatter, scatter <-> gather)


@helper
def pad_to(t: Tensor, shape: Dims) -> Tensor:
    """``t`` zero-padded at the end of each dim up to ``shape`` (torch's pad order: last first)."""
    pads = ()
    for i in range(len(shape)):
        pads = pads + (0, shape[len(shape) - 1 - i] - t.shape[len(shape) - 1 - i])
    return ops.pad(t, pads, 0.0)


@samples(case(T(3, 4), 0, I(1, 4, high=3), T(1, 4)), case(T(3, 4), 1, I(3, 1, high=4), T(3, 1)),
         case(T(2, 3, 4), -1, I(2, 3, 1, high=4), T(2, 3, 1)))
@formula
def scatter(x: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """x with ``x[index[i][j]][j] = src[i][j]`` (dim 0; likewise for others). Where index names
    a position twice the later write wins (torch: nondeterministic); every src element read gets
    the gradient of where it was written (as torch's gather), the unread rest of a larger src
    zero (torch's double backward refuses a src larger than index; ours pads)."""
    result = kernel.scatter(x, dim, index, src)

    def backward(grad):
        holes = ops.scatter(grad, dim, index, ops.zeros(index.shape, grad.dtype))
        return holes, None, pad_to(ops.gather(grad, dim, index), src.shape)

    return result, backward


@samples(case(T(3, 4), 0, I(1, 4, high=3), 2.5), case(T(2, 3, 4), -1, I(2, 3, 1, high=4), -1.0))
@formula
def scatter_value(x: Tensor, dim: int, index: Tensor, value: float) -> Tensor:
    """torch.scatter(x, dim, index, value): ``value`` at the positions index names."""
    return ops.scatter(x, dim, index, ops.zeros(index.shape, x.dtype) + value)


@helper
def broadcast_pair(a: Dims, b: Dims) -> Dims:
    """The broadcast shape of ``a`` and ``b`` (already known to broadcast)."""
    n = max(len(a), len(b))
    out = ()
    for i in range(n):
        da = a[i - n + len(a)] if i - n + len(a) >= 0 else 1
        db = b[i - n + len(b)] if i - n + len(b) >= 0 else 1
        out = out + ((da if db == 1 else db),)
    return out


@samples(case(T(3, 4), B(3, 4)), case(T(2, 3, 4), B(3, 1)), case(T(4), B(3, 4)))
@formula
def masked_select(x: Tensor, mask: Tensor) -> Tensor:
    """The elements of x where ``mask`` (bool, broadcast with x) is true, as a 1-D tensor."""
    result = kernel.masked_select(x, mask)

    def backward(grad):
        base = ops.zeros(broadcast_pair(x.shape, mask.shape), grad.dtype)
        return ops.masked_scatter(base, mask, grad), None

    return result, backward


@samples(case(T(3, 4), B(3, 4), T(12)), case(T(2, 3, 4), B(3, 1), T(5, 6)))
@formula
def masked_scatter(x: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """x with its masked positions (mask broadcast to x) filled, in order, from source."""
    result = kernel.masked_scatter(x, mask, source)

    def backward(grad):
        taken = ops.masked_select(grad, mask)
        rest = ops.pad(taken, (0, source.numel - taken.shape[0]), 0.0)
        return ops.masked_fill(grad, mask, 0.0), None, ops.reshape(rest, source.shape)

    return result, backward


# ---------------------------------------------------------------------------------------------
# scatter_reduce, one formula per reduction (the language has no string parameters): torch's
# scatter_reduce(x, dim, index, src, "sum" | "mean", include_self=...)


@helper
def scatter_hits(x: Tensor, dim: int, index: Tensor) -> Tensor:
    """How many src elements ``index`` sends to each element of x (x's shape, x's dtype)."""
    ones = ops.zeros(index.shape, x.dtype) + 1.0
    return ops.scatter_add(ops.zeros(x.shape, x.dtype), dim, index, ones)


@samples(case(T(3, 4), 0, I(5, 4, high=3), T(5, 4)),
         case(T(3, 4), 1, I(3, 6, high=4), T(3, 6), include_self=False),
         case(T(2, 3, 4), -1, I(2, 3, 2, high=4), T(2, 3, 2), include_self=False))
@formula
def scatter_reduce_sum(x: Tensor, dim: int, index: Tensor, src: Tensor,
                       include_self: bool = True) -> Tensor:
    """torch.scatter_reduce(..., "sum"): src added at the positions index names; without
    ``include_self`` those positions forget x's value (and x gets no gradient there)."""
    if include_self:
        return ops.scatter_add(x, dim, index, src)
    base = ops.where(scatter_hits(x, dim, index) > 0.0, ops.zeros_like(x), x)
    return ops.scatter_add(base, dim, index, src)


@samples(case(T(3, 4), 0, I(5, 4, high=3), T(5, 4)),
         case(T(3, 4), 1, I(3, 6, high=4), T(3, 6), include_self=False),
         case(T(2, 3, 4), -1, I(2, 3, 2, high=4), T(2, 3, 2)))
@formula
def scatter_reduce_mean(x: Tensor, dim: int, index: Tensor, src: Tensor,
                        include_self: bool = True) -> Tensor:
    """torch.scatter_reduce(..., "mean"): the mean of the src elements sent to each position
    (with x's own value when ``include_self``); positions nothing is sent to keep x."""
    hits = scatter_hits(x, dim, index)
    total = ops.scatter_reduce_sum(x, dim, index, src, include_self)
    count = hits + 1.0 if include_self else ops.maximum(hits, ops.ones_like(hits))
    return total / count
