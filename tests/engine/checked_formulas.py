"""Test formulas that pass the translator's checker (registered with a ``t_`` prefix)."""

from transgrad.lang import T, Tensor, formula, kernel, ops, samples


@samples(T(3))
@formula
def t_square(x: Tensor) -> Tensor:
    result = kernel.mul(x, x)

    def backward(grad):
        return grad * 2.0 * x

    return result, backward


@samples(T(3))
@formula
def t_exp(x: Tensor) -> Tensor:
    result = kernel.exp(x)

    def backward(grad):
        return grad * result

    return result, backward


@samples(T(2, 3))
@formula
def t_rowsum(x: Tensor) -> Tensor:
    result = kernel.sum(x, (1,), False)

    def backward(grad):
        return ops.expand(ops.unsqueeze(grad, 1), x.shape)

    return result, backward
