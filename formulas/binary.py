"""Elementwise binary formulas: two broadcasting inputs (``x``, ``other``).

Backwards return gradients of the broadcast shape: the engine sums each one down to its input's
shape (Note: formulas never undo broadcasting). Comparisons are composites over a kernel: their
bool output is not differentiable.
"""

from transgrad.lang import B, T, Tensor, case, formula, kernel, ops, samples

# ---------------------------------------------------------------------------------------------
# Arithmetic


@samples(case(T(3, 4), T(3, 4)), case(T(2, 1, 3), T(4, 1)), case(T(3), T()))
@formula
def add(x: Tensor, other: Tensor) -> Tensor:
    result = kernel.add(x, other)

    def backward(grad):
        return grad, grad

    return result, backward


@samples(case(T(3, 4), T(3, 4)), case(T(2, 1, 3), T(4, 1)))
@formula
def sub(x: Tensor, other: Tensor) -> Tensor:
    result = kernel.sub(x, other)

    def backward(grad):
        return grad, -grad

    return result, backward


# torch records its own nodes for `other - x` written as rsub: RsubBackward0 for a tensor other,
# RsubBackward1 for a number (`1.0 - x`, one edge only), so these are formulas of their own.
@samples(case(T(3, 4), T(3, 4)), case(T(2, 1, 3), T(4, 1)))
@formula
def rsub(x: Tensor, other: Tensor) -> Tensor:
    result = kernel.sub(other, x)

    def backward(grad):
        return -grad, grad

    return result, backward


@samples(case(T(3, 4), 2.5), case(T(5), -1.0))
@formula
def rsub_scalar(x: Tensor, other: float) -> Tensor:
    result = kernel.sub(kernel.scalar_like(x, other), x)

    def backward(grad):
        return -grad

    return result, backward


@samples(case(T(3, 4), T(3, 4)), case(T(2, 1, 3), T(4, 1)))
@formula(inplace_saves_copy=True)
def mul(x: Tensor, other: Tensor) -> Tensor:
    result = kernel.mul(x, other)

    def backward(grad):
        return grad * other, grad * x

    return result, backward


@samples(case(T(3, 4), T(3, 4, low=0.5, high=2.0)), case(T(2, 1, 3), T(4, 1, low=0.5)))
@formula(inplace_saves_copy=True)
def div(x: Tensor, other: Tensor) -> Tensor:
    result = kernel.div(x, other)

    def backward(grad):
        return grad / other, -grad * x / (other * other)

    return result, backward


@samples(case(T(3, 4, low=0.5, high=2.0), T(3, 4)), case(T(3, 1, low=0.5), T(4, low=-1.0)))
@formula(inplace_saves_copy=True)
def pow(x: Tensor, other: Tensor) -> Tensor:
    """``x ** other``. Gradients as PyTorch's: none to x where other == 0; none to other where
    x == 0 and other >= 0 (0 ** b is flat there); where x == 0 and other < 0 it is
    ``result * log(x)`` (0 ** -1: inf * -inf = -inf), as torch. A zero base is tested in
    tests/formulas/test_formula_edges.py, not sampled: torch's second order there is NaN where
    0 ** b is flat (ours: 0)."""
    result = kernel.pow(x, other)

    def backward(grad):
        zero = ops.zeros_like(grad)
        grad_x = ops.where(other == 0.0, zero, grad * other * ops.pow(x, other - 1.0))
        # flat: x == 0 and other >= 0. The inner where keeps log's own derivative finite there,
        # for double backward.
        flat = ops.cast(x == 0.0, grad.dtype) * ops.cast(other >= 0.0, grad.dtype) > 0.0
        safe_x = ops.where(flat, ops.ones_like(x), x)
        grad_other = ops.where(flat, zero, grad * result * ops.log(safe_x))
        return grad_x, grad_other

    return result, backward


# ---------------------------------------------------------------------------------------------
# Selection (ties split the gradient evenly, as PyTorch)


@samples(case(T(3, 4), T(3, 4)), case(T(2, 1, 3), T(4, 1)))
@formula(inplace_saves_copy=True)
def maximum(x: Tensor, other: Tensor) -> Tensor:
    result = kernel.maximum(x, other)

    def backward(grad):
        share = ops.cast(x > other, grad.dtype) + ops.cast(x == other, grad.dtype) * 0.5
        return grad * share, grad * (1.0 - share)

    return result, backward


@samples(case(T(3, 4), T(3, 4)), case(T(2, 1, 3), T(4, 1)))
@formula(inplace_saves_copy=True)
def minimum(x: Tensor, other: Tensor) -> Tensor:
    result = kernel.minimum(x, other)

    def backward(grad):
        share = ops.cast(x < other, grad.dtype) + ops.cast(x == other, grad.dtype) * 0.5
        return grad * share, grad * (1.0 - share)

    return result, backward


@samples(case(B(3, 4), T(3, 4), T(3, 4)), case(B(2, 1, 3), T(4, 1), T(3)))
@formula
def where(cond: Tensor, x: Tensor, other: Tensor) -> Tensor:
    result = kernel.where(cond, x, other)

    def backward(grad):
        zero = ops.zeros_like(grad)
        return None, ops.where(cond, grad, zero), ops.where(cond, zero, grad)

    return result, backward


# ---------------------------------------------------------------------------------------------
# Comparisons and logic (bool outputs, not differentiable)


@samples(case(T(3, 4), T(3, 4)), case(T(2, 1, 3), T(4, 1)))
@formula
def eq(x: Tensor, other: Tensor) -> Tensor:
    return kernel.eq(x, other)


@samples(case(T(3, 4), T(3, 4)), case(T(2, 1, 3), T(4, 1)))
@formula
def ne(x: Tensor, other: Tensor) -> Tensor:
    return kernel.ne(x, other)


@samples(case(T(3, 4), T(3, 4)), case(T(2, 1, 3), T(4, 1)))
@formula
def lt(x: Tensor, other: Tensor) -> Tensor:
    return kernel.lt(x, other)


@samples(case(T(3, 4), T(3, 4)), case(T(2, 1, 3), T(4, 1)))
@formula
def le(x: Tensor, other: Tensor) -> Tensor:
    return kernel.le(x, other)


@samples(case(T(3, 4), T(3, 4)), case(T(2, 1, 3), T(4, 1)))
@formula
def gt(x: Tensor, other: Tensor) -> Tensor:
    return kernel.gt(x, other)


@samples(case(T(3, 4), T(3, 4)), case(T(2, 1, 3), T(4, 1)))
@formula
def ge(x: Tensor, other: Tensor) -> Tensor:
    return kernel.ge(x, other)


@samples(B(3, 4))
@formula
def logical_not(x: Tensor) -> Tensor:
    return kernel.logical_not(x)
