"""Reductions: sum, mean, extrema, log-sum-exp, softmax, sum_to, max/min along a dim.

Note [Reduced dims in backward]: a backward must put reduced dims back before broadcasting the
gradient to the input. The forward computes, from ``dims`` and the input's metadata only, the
normalised dims (``rdims``) and the input shape with each reduced dim set to 1 (``kept``); both
are saved attributes. ``ops.reshape(grad, kept)`` then undoes ``keepdim=False`` whatever it was,
and broadcasting (``ops.expand`` or a broadcasting op) restores the input shape.
"""

from transgrad.lang import (
    Dims,
    Optional,
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
def reduction_dims(dims: Optional[Dims], ndim: int) -> Dims:
    """``dims`` with negative entries in [-ndim, 0) wrapped, all dims when None; () for a 0-d
    tensor. Out-of-range dims (-3 on a 2-D tensor too) are left as they are, for the kernel to
    report: wrapping -3 to -1 would let the kernel wrap it again to a dim that exists."""
    out = ()
    if ndim == 0:
        return out
    if dims is None:
        for i in range(ndim):
            out = out + (i,)
        return out
    for d in dims:
        out = out + ((d + ndim if -ndim <= d and d < 0 else d),)
    return out


@helper
def keepdim_shape(shape: Shape, rdims: Dims) -> Shape:
    """``shape`` with each dim in ``rdims`` (normalised) set to 1."""
    out = ()
    for i in range(len(shape)):
        size = shape[i]
        for d in rdims:
            if d == i:
                size = 1
        out = out + (size,)
    return out


@helper
def reduced_numel(shape: Shape, rdims: Dims) -> int:
    """How many elements each output element of a reduction over ``rdims`` combines."""
    n = 1
    for d in rdims:
        n = n * shape[d]
    return n


# ---------------------------------------------------------------------------------------------
# Sums and means


@samples(T(3, 4), case(T(2, 3, 4), (1, -1)), case(T(2, 3, 4), dims=(0,), keepdim=True))
@formula
def sum(x: Tensor, dims: Optional[Dims] = None, keepdim: bool = False) -> Tensor:
    rdims = reduction_dims(dims, x.ndim)
    kept = keepdim_shape(x.shape, rdims)
    result = kernel.sum(x, rdims, keepdim)

    def backward(grad):
        return ops.expand(ops.reshape(grad, kept), x.shape)

    return result, backward


@samples(T(3, 4), case(T(2, 3, 4), (-1, 0)), case(T(2, 3, 4), dims=(1,), keepdim=True))
@formula
def mean(x: Tensor, dims: Optional[Dims] = None, keepdim: bool = False) -> Tensor:
    rdims = reduction_dims(dims, x.ndim)
    kept = keepdim_shape(x.shape, rdims)
    count = reduced_numel(x.shape, rdims)
    result = kernel.div(kernel.sum(x, rdims, keepdim), kernel.scalar_like(x, count))

    def backward(grad):
        return ops.expand(ops.reshape(grad, kept), x.shape) / count

    return result, backward


# Note [The 2-norm's gradient at zero]
# sqrt(sum(x * x)) composed from ops has the gradient x / ||x||, which is 0 / 0 = NaN where a
# reduced group is all zeros (a zero row given to F.normalize, a zero vector in a cosine
# similarity). torch takes the subgradient 0 there. The backward divides by ||x|| only where it
# is non-zero; where it is zero, x is zero too, so the product is the 0 torch gives.
@samples(T(3, 4), case(T(2, 3, 4), (-1,)), case(T(2, 3, 4), dims=(0, 2), keepdim=True),
         case(T(5), (0,), True))
@formula
def norm2(x: Tensor, dims: Optional[Dims] = None, keepdim: bool = False) -> Tensor:
    """The 2-norm over ``dims`` (all by default), 0 gradient at a zero group (Note [The
    2-norm's gradient at zero])."""
    rdims = reduction_dims(dims, x.ndim)
    kept = keepdim_shape(x.shape, rdims)
    result = kernel.sqrt(kernel.sum(kernel.mul(x, x), rdims, keepdim))

    def backward(grad):
        norm = ops.reshape(result, kept)
        safe = ops.where(norm == 0.0, norm + 1.0, norm)
        return ops.reshape(grad, kept) * x / safe

    return result, backward


@samples(case(T(2, 3, 4), (3, 4)), case(T(2, 3, 4), (3, 1)), case(T(3, 4), (1, 4)))
@formula
def sum_to(x: Tensor, shape: Shape) -> Tensor:
    result = kernel.sum_to(x, shape)

    def backward(grad):
        return ops.expand(grad, x.shape)

    return result, backward


# ---------------------------------------------------------------------------------------------
# Extrema (the gradient is split evenly among ties, as PyTorch's amax/amin)


@samples(T(3, 4), case(T(2, 3, 4), (-1,)), case(T(2, 3, 4), dims=(0, 2), keepdim=True),
         case(T(3, 4, levels=3)), case(T(4, 5, levels=3), (1,)), case(T(2, 3, 4, levels=2), (0, 2)))
@formula
def amax(x: Tensor, dims: Optional[Dims] = None, keepdim: bool = False) -> Tensor:
    rdims = reduction_dims(dims, x.ndim)
    kept = keepdim_shape(x.shape, rdims)
    result = kernel.amax(x, rdims, keepdim)

    def backward(grad):
        mask = ops.cast(x == ops.reshape(result, kept), grad.dtype)
        return ops.reshape(grad, kept) * mask / ops.sum(mask, rdims, True)

    return result, backward


@samples(T(3, 4), case(T(2, 3, 4), (-1,)), case(T(2, 3, 4), dims=(0, 2), keepdim=True),
         case(T(3, 4, levels=3)), case(T(4, 5, levels=3), (1,)), case(T(2, 3, 4, levels=2), (0, 2)))
@formula
def amin(x: Tensor, dims: Optional[Dims] = None, keepdim: bool = False) -> Tensor:
    rdims = reduction_dims(dims, x.ndim)
    kept = keepdim_shape(x.shape, rdims)
    result = kernel.amin(x, rdims, keepdim)

    def backward(grad):
        mask = ops.cast(x == ops.reshape(result, kept), grad.dtype)
        return ops.reshape(grad, kept) * mask / ops.sum(mask, rdims, True)

    return result, backward


@samples(case(T(3, 4), 1), case(T(2, 3, 4), -2, True), case(T(5), 0))
@formula(differentiable_outputs=("values",))
def max_dim(x: Tensor, dim: int, keepdim: bool = False) -> (Tensor, Tensor):
    kept = keepdim_shape(x.shape, reduction_dims((dim,), x.ndim))
    values, indices = kernel.max_dim(x, dim, keepdim)

    def backward(grad):
        zeros = ops.zeros(x.shape, grad.dtype)
        return ops.scatter_add(zeros, dim, ops.reshape(indices, kept), ops.reshape(grad, kept))

    return (values, indices), backward


@samples(case(T(3, 4), 1), case(T(2, 3, 4), -2, True), case(T(5), 0))
@formula(differentiable_outputs=("values",))
def min_dim(x: Tensor, dim: int, keepdim: bool = False) -> (Tensor, Tensor):
    kept = keepdim_shape(x.shape, reduction_dims((dim,), x.ndim))
    values, indices = kernel.min_dim(x, dim, keepdim)

    def backward(grad):
        zeros = ops.zeros(x.shape, grad.dtype)
        return ops.scatter_add(zeros, dim, ops.reshape(indices, kept), ops.reshape(grad, kept))

    return (values, indices), backward


# ---------------------------------------------------------------------------------------------
# Log-sum-exp and softmax (the kernels subtract the max; backwards read the output)


@samples(case(T(3, 4), (1,)), case(T(2, 3, 4), (0, -1), True), case(T(5), (0,)))
@formula
def logsumexp(x: Tensor, dims: Dims, keepdim: bool = False) -> Tensor:
    kept = keepdim_shape(x.shape, reduction_dims(dims, x.ndim))
    result = kernel.logsumexp(x, dims, keepdim)

    def backward(grad):
        return ops.reshape(grad, kept) * ops.exp(x - ops.reshape(result, kept))

    return result, backward


@samples(case(T(3, 4), 1), case(T(2, 3, 4), -2), case(T(5), 0))
@formula
def softmax(x: Tensor, dim: int) -> Tensor:
    result = kernel.softmax(x, dim)

    def backward(grad):
        return ops.softmax_backward_data(grad, result, dim)

    return result, backward


# torch's softmax and log_softmax backwards are ops (_softmax_backward_data,
# _log_softmax_backward_data), so a double backward records SoftmaxBackwardDataBackward0 with
# edges to the incoming grad and to the softmax's output: these formulas are those ops.
@samples(case(T(3, 4), T(3, 4, low=0.05, high=0.5), 1), case(T(2, 3, 4), T(2, 3, 4), -2))
@formula
def softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int) -> Tensor:
    """softmax's gradient from its output: ``output (grad_output - sum(grad_output output))``."""
    result = kernel.mul(output, kernel.sub(grad_output, kernel.sum(
        kernel.mul(grad_output, output), (dim,), True)))

    def backward(grad):
        return (ops.softmax_backward_data(grad, output, dim),
                grad_output * grad - grad * ops.sum(output * grad_output, (dim,), True)
                - grad_output * ops.sum(output * grad, (dim,), True))

    return result, backward


@samples(case(T(3, 4), 1), case(T(2, 3, 4), -2), case(T(5), 0))
@formula
def log_softmax(x: Tensor, dim: int) -> Tensor:
    result = kernel.log_softmax(x, dim)

    def backward(grad):
        return ops.log_softmax_backward_data(grad, result, dim)

    return result, backward


@samples(case(T(3, 4), T(3, 4, low=-3.0, high=-0.1), 1),
         case(T(2, 3, 4), T(2, 3, 4, low=-3.0, high=-0.1), -2))
@formula
def log_softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int) -> Tensor:
    """log_softmax's gradient from its output: ``grad_output - exp(output) sum(grad_output)``."""
    result = kernel.sub(grad_output, kernel.mul(kernel.exp(output),
                                                kernel.sum(grad_output, (dim,), True)))

    def backward(grad):
        e = ops.exp(output)
        return (grad - ops.sum(grad * e, (dim,), True),
                -(ops.sum(grad_output, (dim,), True) * e * grad))

    return result, backward


# ---------------------------------------------------------------------------------------------
# Composites of torch's derivative table (issue 15): both extrema, NaN-skipping sum, moments


@samples(T(3, 4), case(T(2, 3, 4), dim=1), case(T(2, 3, 4), dim=-1, keepdim=True),
         case(T(3, 4, levels=3), dim=0))
@formula
def aminmax(x: Tensor, dim: Optional[int] = None, keepdim: bool = False) -> (Tensor, Tensor):
    """torch.aminmax: (amin, amax) over ``dim`` (all when None); ties split as amin/amax's."""
    dims = None if dim is None else (dim,)
    return ops.amin(x, dims, keepdim), ops.amax(x, dims, keepdim)


@samples(T(3, 4), case(T(2, 3, 4), (1,)), case(T(2, 3, 4), dims=(0, 2), keepdim=True))
@formula
def nansum(x: Tensor, dims: Optional[Dims] = None, keepdim: bool = False) -> Tensor:
    """The sum over ``dims`` treating NaN as 0; NaN elements get no gradient."""
    return ops.sum(ops.where(x != x, ops.zeros_like(x), x), dims, keepdim)


@samples(T(3, 4), case(T(2, 3, 4), (1,)), case(T(2, 3, 4), dims=(0, 2), keepdim=True),
         case(T(5, 3), (0,), 0), case(T(4, 6), (-1,), 2, True))
@formula
def var_mean(x: Tensor, dims: Optional[Dims] = None, correction: int = 1,
             keepdim: bool = False) -> (Tensor, Tensor):
    """torch.var_mean: the variance over ``dims`` (divided by N - correction; inf or NaN when
    that is <= 0, as torch) and the mean."""
    rdims = reduction_dims(dims, x.ndim)
    count = reduced_numel(x.shape, rdims)
    centered = x - ops.mean(x, rdims, True)
    var = ops.sum(centered * centered, rdims, keepdim) / max(0, count - correction)
    return var, ops.mean(x, rdims, keepdim)


@samples(T(3, 4), case(T(2, 3, 4), (1,)), case(T(2, 3, 4), dims=(0, 2), keepdim=True),
         case(T(5, 3), (0,), 0))
@formula
def std_mean(x: Tensor, dims: Optional[Dims] = None, correction: int = 1,
             keepdim: bool = False) -> (Tensor, Tensor):
    """torch.std_mean: the standard deviation (sqrt of var_mean's variance) and the mean."""
    var, average = ops.var_mean(x, dims, correction, keepdim)
    return ops.sqrt(var), average


# ---------------------------------------------------------------------------------------------
# Products (Note [Products with zeros] in scan.py)


@helper
def reduced_last(ndim: int, rdims: Dims) -> Dims:
    """The permutation putting the kept dims first and the reduced ``rdims`` last."""
    kept = ()
    for i in range(ndim):
        if i not in rdims:
            kept = kept + (i,)
    return kept + rdims


@helper
def inverse_permutation(order: Dims) -> Dims:
    out = ()
    for i in range(len(order)):
        for j in range(len(order)):
            if order[j] == i:
                out = out + (j,)
    return out


@helper
def exclusive_products(rows: Tensor) -> Tensor:
    """For each element along the last dim, the product of the others in its row."""
    before = ops.cumprod(ops.pad(rows, (1, -1), 1.0), -1)
    after = ops.flip(ops.cumprod(ops.flip(ops.pad(rows, (-1, 1), 1.0), (-1,)), -1), (-1,))
    return before * after


@samples(T(3, 4), case(T(2, 3, 4), (1,)), case(T(2, 3, 4), dims=(0, 2), keepdim=True),
         case(T(3, 4, zeros=((0, 1), (2, 0), (2, 3))), (1,)),
         case(T(2, 3, 2, zeros=((0, 0, 0), (1, 1, 1), (1, 2, 1))), (0, 2)),
         case(T(3, 3, zeros=((1, 1),))))
@formula
def prod(x: Tensor, dims: Optional[Dims] = None, keepdim: bool = False) -> Tensor:
    """The product over ``dims`` (all when None). Gradients are exact with zeros: with one zero
    in a group only it gets a gradient, with several none does (Note [Products with zeros])."""
    rdims = reduction_dims(dims, x.ndim)
    kept = keepdim_shape(x.shape, rdims)
    order = reduced_last(x.ndim, rdims)
    inverse = inverse_permutation(order)
    moved = tuple(x.shape[d] for d in order)
    rows = moved[: len(moved) - len(rdims)] + (reduced_numel(x.shape, rdims),)
    result = kernel.prod(x, rdims, keepdim)

    def backward(grad):
        flat = ops.reshape(ops.permute(x, order), rows)
        others = ops.permute(ops.reshape(exclusive_products(flat), moved), inverse)
        return ops.reshape(grad, kept) * others

    return result, backward
