"""The package's formulas, in transgrad's formula language (checked and compiled to C++ by
transgrad_add_extension; run in Python by transgrad.reference)."""

from transgrad.lang import T, Tensor, formula, kernel, ops, samples


@samples(T(3, 4))
@formula
def softsign(x: Tensor) -> Tensor:
    """softsign(x) = x / (1 + |x|), as torch.nn.functional.softsign."""
    result = kernel.div(x, kernel.add(kernel.abs(x), kernel.scalar_like(x, 1.0)))

    def backward(grad):
        d = 1.0 + ops.abs(x)
        return grad / (d * d)

    return result, backward


@samples(T(2, 6), T(3, 4))
@formula
def scaled_square(x: Tensor, groups: int = 2) -> Tensor:
    """x * x * k with k = x.shape[-1] // groups + 1: a non-tensor parameter and Python integer
    arithmetic on the shape (floor division keeps Python's meaning for negative groups)."""
    k = x.shape[-1] // groups + 1
    result = kernel.mul(kernel.mul(x, x), kernel.scalar_like(x, 1.0 * k))

    def backward(grad):
        return grad * x * (2.0 * k)

    return result, backward
