"""Assorted tensor ops with their own kernel: cumsum, flip, tril/triu, pad (constant),
sort/topk (values differentiable through their indices) and masked_fill (a number, or a 0-d
tensor whose gradient is kept: ``masked_fill_tensor``).

Each backward is the op's adjoint written with the op itself (flip and pad with negated pads
are self-adjoint, tril's adjoint is tril), so every derivative order is exact.
"""

from transgrad.lang import B, Dims, Shape, T, Tensor, case, formula, kernel, ops, samples


@samples(case(T(3, 4), 1), case(T(2, 3, 4), -3), case(T(5), 0))
@formula
def cumsum(x: Tensor, dim: int) -> Tensor:
    """Running sums along ``dim``; the gradient is the reversed running sum of ``grad``."""
    result = kernel.cumsum(x, dim)

    def backward(grad):
        return ops.flip(ops.cumsum(ops.flip(grad, (dim,)), dim), (dim,))

    return result, backward


@samples(case(T(3, 4), (1,)), case(T(2, 3, 4), (0, -1)), case(T(5), ()))
@formula
def flip(x: Tensor, dims: Dims) -> Tensor:
    """Reverse the order of elements along ``dims`` (a copy)."""
    result = kernel.flip(x, dims)

    def backward(grad):
        return ops.flip(grad, dims)

    return result, backward


@samples(case(T(4, 4)), case(T(2, 3, 5), 1), case(T(4, 3), -1))
@formula
def tril(x: Tensor, diagonal: int = 0) -> Tensor:
    """Keep the elements on and below ``diagonal`` of the last two dims; zero the rest."""
    result = kernel.tril(x, diagonal)

    def backward(grad):
        return ops.tril(grad, diagonal)

    return result, backward


@samples(case(T(4, 4)), case(T(2, 3, 5), 1), case(T(4, 3), -1))
@formula
def triu(x: Tensor, diagonal: int = 0) -> Tensor:
    """Keep the elements on and above ``diagonal`` of the last two dims; zero the rest."""
    result = kernel.triu(x, diagonal)

    def backward(grad):
        return ops.triu(grad, diagonal)

    return result, backward


@samples(case(T(3, 4), (1, 2)), case(T(2, 3, 4), (1, 0, 2, 1), 0.5),
         case(T(3, 5), (-1, 2, 1, -1)))
@formula
def pad(x: Tensor, pads: Shape, value: float = 0.0) -> Tensor:
    """Constant padding, torch's order: (left, right) of the last dim, then the one before, ...;
    a negative pad crops. The gradient crops what was padded: ``pad`` with negated pads."""
    result = kernel.pad(x, pads, value)
    crop = tuple(-p for p in pads)

    def backward(grad):
        return ops.pad(grad, crop, 0.0)

    return result, backward


@samples(case(T(3, 4), -1), case(T(2, 3, 4), 1, True), case(T(5), 0))
@formula(differentiable_outputs=("values",))
def sort(x: Tensor, dim: int = -1, descending: bool = False) -> (Tensor, Tensor):
    """Values sorted along ``dim`` (stable) and the indices they came from."""
    values, indices = kernel.sort(x, dim, descending)

    def backward(grad):
        return ops.scatter_add(ops.zeros(x.shape, grad.dtype), dim, indices, grad)

    return (values, indices), backward


@samples(case(T(3, 5), 2), case(T(2, 6, 3), 3, 1, False), case(T(5), 5))
@formula(differentiable_outputs=("values",))
def topk(x: Tensor, k: int, dim: int = -1, largest: bool = True) -> (Tensor, Tensor):
    """The ``k`` largest (or smallest) values along ``dim``, sorted, and their indices."""
    values, indices = kernel.topk(x, k, dim, largest)

    def backward(grad):
        return ops.scatter_add(ops.zeros(x.shape, grad.dtype), dim, indices, grad)

    return (values, indices), backward


@samples(case(T(3, 4), B(3, 4), 0.0), case(T(2, 3, 4), B(3, 1), -1.5), case(T(3, 4), B(4), 2.0))
@formula
def masked_fill(x: Tensor, mask: Tensor, value: float) -> Tensor:
    """``value`` where ``mask`` (bool, broadcast against x) is true, else ``x``."""
    result = kernel.where(mask, kernel.scalar_like(x, value), x)

    def backward(grad):
        return ops.masked_fill(grad, mask, 0.0), None

    return result, backward


@samples(case(T(3, 4), B(3, 4), T()), case(T(2, 3, 4), B(3, 1), T()), case(T(3, 4), B(4), T()))
@formula
def masked_fill_tensor(x: Tensor, mask: Tensor, value: Tensor) -> Tensor:
    """torch's ``masked_fill(x, mask, value)`` with a 0-d tensor ``value``: the value's gradient
    is the sum of ``grad`` where ``mask`` is true (the where's broadcast summed down)."""
    if value.ndim != 0:
        raise RuntimeError(
            f"masked_fill only supports a 0-dimensional value tensor (got {value.ndim}-D)")
    return ops.where(mask, ops.cast(value, x.dtype), x)
