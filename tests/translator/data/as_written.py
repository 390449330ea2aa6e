"""Formulas written as people write them (issue #12 item 6), for tests only: never shipped,
never left in the registry (tests/translator/test_as_written.py loads and unloads it)."""

from transgrad.lang import Tensor, formula, kernel, ops


@formula
def aw_exp(x: Tensor) -> Tensor:
    def backward(grad):
        return grad * ops.exp(x)

    return kernel.exp(x), backward


@formula(materialize_grads=True)
def aw_pair(x: Tensor) -> tuple[Tensor, Tensor]:
    result = kernel.neg(x)

    def backward(grad, grad_scaled):
        return ops.neg(grad) + grad_scaled * ops.exp(x)

    return (result, kernel.exp(x)), backward


@formula
def aw_affine(x: Tensor, c: float) -> Tensor:
    y = kernel.mul(x, c)
    result = kernel.add(y, 1.0)

    def backward(grad):
        return grad * c

    return result, backward


@formula
def aw_rsub(x: Tensor) -> Tensor:
    def backward(grad):
        return -grad

    return kernel.sub(2, x), backward


@formula
def aw_total(x: Tensor) -> Tensor:
    result = kernel.sum(x)

    def backward(grad):
        return ops.expand(grad, x.shape)

    return result, backward


@formula
def aw_rows(x: Tensor) -> Tensor:
    result = kernel.sum(x, (1,))

    def backward(grad):
        return ops.expand(ops.unsqueeze(grad, 1), x.shape)

    return result, backward
