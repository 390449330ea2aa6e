"""BLAS-like composites, torch's ``beta * input + alpha * (product)`` family, with trace and the
distances dist, cdist and pdist.

Stage: formulas (composites: no backward; autograd records ``matmul_nd``, ``mul``, ``sum``...;
addmm is one node, Note [addmm is one node]).
Each takes torch's signature and defaults. As torch, ``beta == 0`` ignores ``input`` (NaN and
inf in it do not propagate, and its gradient is zeros) and ``alpha``/``beta`` equal to 1 multiply
nothing. ``input`` broadcasts to the product's shape; its gradient is summed down by the engine.
"""

import math

from transgrad.lang import Scalar, T, Tensor, case, formula, helper, kernel, ops, samples

# ---------------------------------------------------------------------------------------------
# beta * input + alpha * product


@helper
def scaled_sum(input: Tensor, product: Tensor, beta: Scalar, alpha: Scalar) -> Tensor:
    """``beta * input + alpha * product``; ``input`` ignored when ``beta == 0`` (as torch)."""
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:
        # torch's value ignores input (no NaN from it) and its gradient is a zero tensor, not
        # None: a where that never picks input gives both.
        return ops.where(ops.zeros_like(scaled) != 0.0, input, scaled)
    return scaled + (input if beta == 1 else input * beta)


# Note [addmm is one node]
# torch's F.linear of a batch of vectors with a bias is addmm(bias, x, weight.t()): one
# AddmmBackward0 whose edges are the bias, x and a TBackward0 over the weight. So addmm is a
# formula of its own (was scaled_sum over matmul_nd: MmBackward0 and AddBackward0), and when it
# is linear's case (a vector input, beta = alpha = 1) its forward is linear_gemm, the bias
# inside the gemm, on mat2's transpose: for mat2 = weight.t() that is the weight itself, no
# copy (Note [linear's bias in the gemm] in csrc/kernels/linalg.cpp). mat2's gradient is the
# transpose of grad^T @ mat1, so that TBackward0 hands the weight a contiguous gradient.


@samples(case(T(3, 5), T(3, 4), T(4, 5)), case(T(5), T(3, 4), T(4, 5), beta=0.5, alpha=-2.0),
         case(T(3, 1), T(3, 2), T(2, 4), beta=0.0), case(T(5), T(3, 4), T(4, 5)),
         case(T(1, 5), T(3, 4), T(4, 5), alpha=2))
@formula
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, beta: Scalar = 1,
          alpha: Scalar = 1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` for matrices ``mat1`` (n, m) and ``mat2`` (m, p)
    (Note [addmm is one node])."""
    if mat1.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.ndim}-D tensor")
    if mat2.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2.ndim}-D tensor")
    fused = (beta == 1 and alpha == 1 and input.ndim == 1 and input.shape[0] == mat2.shape[1]
             and mat1.shape[1] == mat2.shape[0])
    product = kernel.linear_gemm(mat1, kernel.transpose(mat2, 0, 1), input if fused else None)
    scaled = product if alpha == 1 else kernel.mul(product, kernel.scalar_like(product, alpha))
    result = (scaled if fused or beta == 0 else
              kernel.add(scaled, input if beta == 1 else
                         kernel.mul(input, kernel.scalar_like(input, beta))))

    def backward(grad):
        g = grad if alpha == 1 else grad * alpha
        return (grad if beta == 1 else grad * beta,
                ops.matmul_nd(g, ops.transpose(mat2, 0, 1)),
                ops.transpose(ops.matmul_nd(ops.transpose(g, 0, 1), mat1), 0, 1))

    return result, backward


@samples(case(T(2, 3, 5), T(2, 3, 4), T(2, 4, 5)), case(T(3, 1), T(2, 3, 4), T(2, 4, 5), beta=2.0),
         case(T(2, 3, 5), T(2, 3, 4), T(2, 4, 5), beta=0.0, alpha=0.5))
@formula
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, beta: Scalar = 1,
            alpha: Scalar = 1) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)`` for (b, n, m) and (b, m, p) batches."""
    if batch1.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor, got {batch1.ndim}-D tensor")
    if batch2.ndim != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor, got {batch2.ndim}-D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        n1 = batch1.shape[0]
        n2 = batch2.shape[0]
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {n1} and {n2}")
    return scaled_sum(input, ops.matmul_nd(batch1, batch2), beta, alpha)


@samples(case(T(3, 5), T(2, 3, 4), T(2, 4, 5)), case(T(5), T(4, 3, 2), T(4, 2, 5), alpha=3.0),
         case(T(3, 5), T(2, 3, 4), T(2, 4, 5), beta=-1.0))
@formula
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, beta: Scalar = 1,
           alpha: Scalar = 1) -> Tensor:
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``: (n, p) from (b, n, m), (b, m, p)."""
    if batch1.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor, got {batch1.ndim}-D tensor")
    if batch2.ndim != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor, got {batch2.ndim}-D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        n1 = batch1.shape[0]
        n2 = batch2.shape[0]
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {n1} and {n2}")
    return scaled_sum(input, ops.sum(ops.matmul_nd(batch1, batch2), (0,)), beta, alpha)


@samples(case(T(3), T(3, 4), T(4)), case(T(1), T(3, 4), T(4), beta=0.5, alpha=2.0),
         case(T(3), T(3, 4), T(4), beta=0.0))
@formula
def addmv(input: Tensor, mat: Tensor, vec: Tensor, beta: Scalar = 1, alpha: Scalar = 1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)`` for a matrix (n, m) and a vector (m)."""
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    product = ops.squeeze(ops.matmul_nd(mat, ops.unsqueeze(vec, -1)), (-1,))
    return scaled_sum(input, product, beta, alpha)


@samples(case(T(3, 4), T(3), T(4)), case(T(4), T(3), T(4), beta=2.0, alpha=0.5),
         case(T(3, 4), T(3), T(4), beta=0.0))
@formula
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, beta: Scalar = 1, alpha: Scalar = 1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``."""
    if vec1.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D")
    if vec2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    outer = ops.unsqueeze(vec1, -1) * ops.unsqueeze(vec2, 0)
    return scaled_sum(input, outer, beta, alpha)


# ---------------------------------------------------------------------------------------------
# trace and dist


@samples(T(4, 4), T(3, 5), T(5, 2))
@formula
def trace(x: Tensor) -> Tensor:
    """Sum of the main diagonal of a matrix (any n x m)."""
    if x.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {x.ndim}")
    return ops.sum(ops.diagonal(x, 0, 0, 1))


@samples(case(T(3, 4), T(3, 4)), case(T(2, 3), T(3), 3.0), case(T(4), T(4), 1.0),
         case(T(3, 4), T(4), float("inf")), case(T(3, 4), T(3, 1), float("-inf")),
         case(T(2, 3), T(2, 3), 0.5))
@formula
def dist(x: Tensor, other: Tensor, p: float = 2.0) -> Tensor:
    """The ``p``-norm of ``x - other`` (broadcast), as torch.dist: p = inf is the largest
    ``|x - other|``, -inf the smallest, 0 the count of nonzeros (no gradient). At
    ``x == other`` the 2-norm's gradient is 0/0 (NaN), as ``sqrt``'s at 0."""
    diff = ops.abs(x - other)
    if p == 0.0:
        return ops.sum(ops.cast(diff != 0.0, diff.dtype))
    if p == math.inf:
        return ops.amax(diff)
    if p == -math.inf:
        return ops.amin(diff)
    if p == 2.0:
        return ops.sqrt(ops.sum(diff * diff))
    if p == 1.0:
        return ops.sum(diff)
    return ops.pow_scalar(ops.sum(ops.pow_scalar(diff, p)), 1.0 / p)


@helper
def p_norm_last(diff: Tensor, p: float) -> Tensor:
    """The ``p``-norm of ``diff`` over its last dim, as torch.dist (inf, -inf, 0 included)."""
    mag = ops.abs(diff)
    if p == 0.0:  # a count: differentiable with gradient 0, as torch's (not detached)
        return ops.sum(ops.cast(mag != 0.0, mag.dtype), (-1,)) + ops.sum(mag, (-1,)) * 0.0
    if p == math.inf:
        return ops.amax(mag, (-1,))
    if p == -math.inf:
        return ops.amin(mag, (-1,))
    if p == 1.0:
        return ops.sum(mag, (-1,))
    if p == 2.0:  # 0 gradient at a zero distance (Note [The 2-norm's gradient at zero])
        return ops.norm2(diff, (-1,))
    # s ** (1/p) at s = 0: an infinite derivative times 0 (NaN); torch's subgradient is 0. The
    # root of 1 is taken there and 0 selected: same values, a zero-distance gradient of 0.
    total = ops.sum(ops.pow_scalar(mag, p), (-1,))
    zero = total == 0.0
    root = ops.pow_scalar(ops.where(zero, total + 1.0, total), 1.0 / p)
    return ops.where(zero, root * 0.0, root)


@samples(case(T(4, 3), T(5, 3)), case(T(2, 4, 3), T(2, 5, 3), 1.0), case(T(3, 2), T(4, 2), 3.0),
         case(T(2, 3, 4), T(1, 2, 4), float("inf")))
@formula
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0) -> Tensor:
    """torch.cdist: the ``p``-norm distance between each row of x1 (..., P, M) and each row of
    x2 (..., R, M), batch dims broadcast; a zero distance has the gradient 0, as torch's."""
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")  # noqa: E501
    return p_norm_last(ops.unsqueeze(x1, -2) - ops.unsqueeze(x2, -3), p)


@samples(case(T(5, 3)), case(T(4, 2), 1.0), case(T(6, 3), 3.0), case(T(4, 3), float("inf")))
@formula
def pdist(x: Tensor, p: float = 2.0) -> Tensor:
    """torch.pdist: the ``p``-norm distances between the rows of x (N, M), pairs i < j in
    row-major order (N (N - 1) / 2 values). Only distinct pairs are formed, so equal rows are
    the only zero distances."""
    if x.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {x.ndim}D")
    n = x.shape[0]
    pairs = ops.triu(ops.zeros((n, n), x.dtype) + 1.0, 1) > 0.0
    diffs = ops.masked_select(ops.unsqueeze(x, 1) - ops.unsqueeze(x, 0), ops.unsqueeze(pairs, -1))
    return p_norm_last(ops.reshape(diffs, (-1, x.shape[1])), p)
