"""Linear algebra: ``matmul_nd`` (operands of >= 2 dims, batch dims broadcast, through BLAS) and
``matmul``, the composite that gives 1-D operands PyTorch's meaning on top of it; inverse, det,
slogdet and solve through LAPACK (csrc/kernels/lapack.cpp).

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


# ---------------------------------------------------------------------------------------------
# Through LAPACK (issue 15): inverse, det, slogdet, solve. Gradients as torch's for invertible
# matrices; at a singular matrix the backwards of det and slogdet raise (inverse's error), where
# torch falls back to an SVD.


@samples(T(3, 3), T(2, 4, 4), T(1, 1, low=0.5, high=2.0))
@formula
def inverse(x: Tensor) -> Tensor:
    """torch.linalg.inv: the inverse of each square matrix (batch dims allowed)."""
    result = kernel.inverse(x)

    def backward(grad):
        inv_t = ops.transpose(result, -1, -2)
        return -ops.matmul_nd(ops.matmul_nd(inv_t, grad), inv_t)

    return result, backward


@samples(T(3, 3), T(2, 4, 4), T(1, 1))
@formula
def det(x: Tensor) -> Tensor:
    """torch.linalg.det; the gradient is ``grad * det(x) * inverse(x)^T``."""
    result = kernel.det(x)

    def backward(grad):
        scale = ops.unsqueeze(ops.unsqueeze(grad * result, -1), -1)
        return scale * ops.transpose(ops.inverse(x), -1, -2)

    return result, backward


@samples(T(3, 3), T(2, 4, 4))
@formula(differentiable_outputs=("logabsdet",))
def slogdet(x: Tensor) -> (Tensor, Tensor):
    """torch.linalg.slogdet: (sign, log |det|); only log |det| is differentiable, with gradient
    ``grad * inverse(x)^T``. A singular matrix gives (0, -inf)."""
    sign, logabsdet = kernel.slogdet(x)

    def backward(grad):
        scale = ops.unsqueeze(ops.unsqueeze(grad, -1), -1)
        return scale * ops.transpose(ops.inverse(x), -1, -2)

    return (sign, logabsdet), backward


@samples(case(T(3, 3), T(3, 2)), case(T(2, 4, 4), T(4, 1)), case(T(3, 3), T(2, 3, 5)))
@formula
def solve_matrix(a: Tensor, b: Tensor) -> Tensor:
    """``X`` with ``a @ X = b`` for b of shape (..., n, k), batch dims broadcast."""
    result = kernel.solve(a, b)

    def backward(grad):
        grad_b = ops.solve_matrix(ops.transpose(a, -1, -2), grad)
        return -ops.matmul_nd(grad_b, ops.transpose(result, -1, -2)), grad_b

    return result, backward


@samples(case(T(3, 3), T(3)), case(T(2, 4, 4), T(2, 4)), case(T(3, 3), T(3, 2)))
@formula
def solve(a: Tensor, b: Tensor) -> Tensor:
    """torch.linalg.solve(A, B): B is a vector when 1-D, or when it has A's shape without its
    last dim (as torch); otherwise a batch of matrices."""
    batch_of_vectors = b.ndim == a.ndim - 1 and b.shape == a.shape[:-1]
    vector = b.ndim == 1 or batch_of_vectors
    if vector:
        return ops.squeeze(ops.solve_matrix(a, ops.unsqueeze(b, -1)), (-1,))
    return ops.solve_matrix(a, b)
