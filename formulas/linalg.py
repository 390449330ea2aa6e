"""Linear algebra: ``matmul_nd`` (operands of >= 2 dims, batch dims broadcast, through BLAS) and
``matmul``, the composite that gives 1-D operands PyTorch's meaning on top of it.

matmul_nd's gradients have the broadcast batch shape; the engine sums them down to each input's
shape, so the formula never undoes broadcasting.
"""

from transgrad.lang import T, Tensor, case, formula, kernel, ops, samples


@samples(case(T(3, 4), T(4, 5)), case(T(2, 3, 4), T(4, 2)), case(T(2, 1, 3, 4), T(5, 4, 2)))
@formula
def matmul_nd(x: Tensor, other: Tensor) -> Tensor:
    result = kernel.matmul(x, other)

    def backward(grad):
        return (ops.matmul_nd(grad, ops.transpose(other, -1, -2)),
                ops.matmul_nd(ops.transpose(x, -1, -2), grad))

    return result, backward


@samples(case(T(3, 4), T(4, 5)), case(T(4), T(4)), case(T(4), T(2, 4, 3)),
         case(T(2, 3, 4), T(4)))
@formula
def matmul(x: Tensor, other: Tensor) -> Tensor:
    # A 1-D x is a row (dim -2 added, then removed); a 1-D other is a column (dim -1).
    row = ops.unsqueeze(x, 0) if x.ndim == 1 else x
    col = ops.unsqueeze(other, -1) if other.ndim == 1 else other
    added = ((-2,) if x.ndim == 1 else ()) + ((-1,) if other.ndim == 1 else ())
    return ops.squeeze(ops.matmul_nd(row, col), added)
