"""Scans and order statistics of torch's derivative table (issue 15): cumprod, logcumsumexp,
cummax/cummin, kthvalue, median (prod, aminmax, nansum, var_mean/std_mean are in reduce.py).

Stage: formulas. Kernels: csrc/kernels/scan.cpp, reference/kernels_special.py; the order
statistics are composites over ``sort``.

Note [Products with zeros]: prod's (reduce.py) gradient is, for each element, the product of
the *other* elements of its group. Dividing the result by the element fails at zeros, so it is
built as (product of those before) * (product of those after), two exclusive cumprods: exact
with one zero (only the zero gets a gradient) and with several (all zero), and differentiable
again.
cumprod's gradient for element k is sum_{i >= k} grad_i * prod_{j <= i, j != k} x_j; it is
built the same way for every k at once, from a (n, n) matrix per row whose row k has x_k
replaced by 1: O(n^2) memory per scanned row, exact with zeros. (torch is O(n) when there are
no zeros; a linear-recurrence kernel would make ours O(n) too.)
"""

import math

from transgrad.lang import T, Tensor, case, formula, helper, kernel, ops, samples

# A log-space stand-in for log(0) that keeps exp(LOG_ZERO) == 0 without the inf - inf of -inf
LOG_ZERO = -1.0e30

@helper
def cumprod_grad(x: Tensor, grad: Tensor, dim: int) -> Tensor:
    """sum_{i >= k} grad_i * prod_{j <= i, j != k} x_j along ``dim``
    (Note [Products with zeros])."""
    xt = ops.transpose(x, dim, -1)
    n = xt.shape[-1]
    eye = ops.tril(ops.triu(ops.zeros((n, n), x.dtype) + 1.0, 0), 0)
    rows = ops.unsqueeze(xt, -2) * (1.0 - eye) + eye  # row k: x with x_k replaced by 1
    partial = ops.triu(ops.cumprod(rows, -1), 0)  # [k, i]: the product up to i without x_k
    total = ops.sum(partial * ops.unsqueeze(ops.transpose(grad, dim, -1), -2), (-1,))
    return ops.transpose(total, dim, -1)


@samples(case(T(3, 4), 1), case(T(2, 3, 4), -3), case(T(5), 0),
         case(T(3, 4, zeros=((0, 1), (2, 0), (2, 2))), 1), case(T(4, 3, zeros=((1, 0),)), 0))
@formula
def cumprod(x: Tensor, dim: int) -> Tensor:
    """Running products along ``dim``; exact gradients with zeros (Note [Products with zeros])."""
    result = kernel.cumprod(x, dim)

    def backward(grad):
        if x.ndim == 0:
            return grad
        return cumprod_grad(x, grad, dim)

    return result, backward


# ---------------------------------------------------------------------------------------------
# Log-cumulative-sum-exp


@helper
def reverse_logcumsumexp(t: Tensor, dim: int) -> Tensor:
    return ops.flip(ops.logcumsumexp(ops.flip(t, (dim,)), dim), (dim,))


@helper
def signed_log(grad: Tensor, positive: bool) -> Tensor:
    """log |grad| where grad has the given sign, LOG_ZERO elsewhere (the inner where keeps
    log's derivative finite where it is not taken)."""
    mask = grad > 0.0 if positive else grad < 0.0
    safe = ops.where(mask, grad if positive else -grad, ops.ones_like(grad))
    return ops.where(mask, ops.log(safe), ops.zeros_like(grad) + LOG_ZERO)


@samples(case(T(3, 4), 1), case(T(2, 3, 4), -2), case(T(5, low=-30.0, high=30.0), 0))
@formula
def logcumsumexp(x: Tensor, dim: int) -> Tensor:
    """``log(cumsum(exp(x)))`` along ``dim`` without overflow. The gradient
    ``exp(x_k) * sum_{i >= k} grad_i exp(-result_i)`` is summed in log space, the positive and
    negative parts of ``grad`` apart, so it does not overflow either (as torch's)."""
    result = kernel.logcumsumexp(x, dim)

    def backward(grad):
        up = ops.exp(x + reverse_logcumsumexp(signed_log(grad, True) - result, dim))
        down = ops.exp(x + reverse_logcumsumexp(signed_log(grad, False) - result, dim))
        return up - down

    return result, backward


# ---------------------------------------------------------------------------------------------
# Running extrema (values differentiable through their indices)


@samples(case(T(3, 4), 1), case(T(2, 3, 4), -3), case(T(6), 0))
@formula(differentiable_outputs=("values",))
def cummax(x: Tensor, dim: int) -> (Tensor, Tensor):
    """Running maximum along ``dim`` and where it was found (the later index among ties)."""
    values, indices = kernel.cummax(x, dim)

    def backward(grad):
        return ops.scatter_add(ops.zeros(x.shape, grad.dtype), dim, indices, grad)

    return (values, indices), backward


@samples(case(T(3, 4), 1), case(T(2, 3, 4), -3), case(T(6), 0))
@formula(differentiable_outputs=("values",))
def cummin(x: Tensor, dim: int) -> (Tensor, Tensor):
    """Running minimum along ``dim`` and where it was found (the later index among ties)."""
    values, indices = kernel.cummin(x, dim)

    def backward(grad):
        return ops.scatter_add(ops.zeros(x.shape, grad.dtype), dim, indices, grad)

    return (values, indices), backward


# ---------------------------------------------------------------------------------------------
# Order statistics (composites over a stable sort: values differentiable through the indices)


@samples(case(T(3, 5), 2), case(T(2, 4, 3), 4, 1, True), case(T(6), 1, 0))
@formula
def kthvalue(x: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> (Tensor, Tensor):
    """The ``k``-th smallest value along ``dim`` (k from 1) and its index."""
    size = x.shape[dim] if x.ndim > 0 else 1
    if k < 1 or k > size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    values, indices = ops.sort(x, dim, False)
    value = ops.select(values, dim, k - 1)
    index = ops.select(indices, dim, k - 1)
    if keepdim:
        return ops.unsqueeze(value, dim), ops.unsqueeze(index, dim)
    return value, index


@samples(case(T(3, 5), 1), case(T(2, 4, 3), -2, True), case(T(6), 0))
@formula
def median_dim(x: Tensor, dim: int, keepdim: bool = False) -> (Tensor, Tensor):
    """torch.median(x, dim): the lower median along ``dim`` and its index."""
    size = x.shape[dim] if x.ndim > 0 else 1
    return ops.kthvalue(x, (size - 1) // 2 + 1, dim, keepdim)


@samples(T(3, 5), T(6), case(T(3, 4, levels=3)), case(T(5, levels=2)))
@formula
def median(x: Tensor) -> Tensor:
    """The lower median of all elements (NaN for an empty tensor). As torch's, the gradient is
    split evenly among the elements equal to the median."""
    flat = kernel.reshape(x, (-1,))
    values, indices = kernel.sort(flat, 0, False)
    if x.numel == 0:
        result = kernel.full((), math.nan, x.dtype)
    else:
        result = kernel.select(values, 0, (x.numel - 1) // 2)

    def backward(grad):
        mask = ops.cast(x == result, grad.dtype)
        return grad * mask / ops.sum(mask)

    return result, backward
