"""Special functions from torch's derivative table (issue 15): erfc, erfinv, lgamma, digamma,
polygamma, logit, xlogy.

Stage: formulas. Each forward is one kernel (csrc/kernels/special.cpp, pointwise.cpp;
reference/kernels_special.py); each backward is built from ops, so every derivative order
exists (lgamma -> digamma -> polygamma(1) -> polygamma(2) ...). Domains and edge values are
torch's (Note [Special function edges] in csrc/kernels/special.cpp).
"""

import math

from transgrad.lang import Optional, T, Tensor, case, formula, kernel, ops, samples

TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)  # d/dx erf(x) = 2/sqrt(pi) * exp(-x^2)
HALF_SQRT_PI = math.sqrt(math.pi) / 2.0  # d/dy erfinv(y) = sqrt(pi)/2 * exp(erfinv(y)^2)


@samples(T(3, 4), T(5, low=-4.0, high=4.0))
@formula
def erfc(x: Tensor) -> Tensor:
    """``1 - erf(x)``, accurate where erf(x) is close to 1."""
    result = kernel.erfc(x)

    def backward(grad):
        return -grad * ops.exp(-(x * x)) * TWO_OVER_SQRT_PI

    return result, backward


@samples(T(3, 4, low=-0.9, high=0.9), T(5, low=-0.999, high=0.999))
@formula
def erfinv(x: Tensor) -> Tensor:
    """The inverse of erf on (-1, 1); +-inf at +-1, NaN outside (as torch)."""
    result = kernel.erfinv(x)

    def backward(grad):
        return grad * ops.exp(result * result) * HALF_SQRT_PI

    return result, backward


@samples(T(3, 4, low=0.1, high=5.0), T(5, low=-2.9, high=-2.1))
@formula
def lgamma(x: Tensor) -> Tensor:
    """``log |Gamma(x)|``; +inf at the poles (non-positive integers)."""
    result = kernel.lgamma(x)

    def backward(grad):
        return grad * ops.digamma(x)

    return result, backward


@samples(T(3, 4, low=0.1, high=5.0), T(5, low=-1.9, high=-1.1))
@formula
def digamma(x: Tensor) -> Tensor:
    """``d/dx log Gamma(x)``; -+inf at +-0 and NaN at negative integers (as torch)."""
    result = kernel.digamma(x)

    def backward(grad):
        return grad * ops.polygamma(1, x)

    return result, backward


@samples(case(1, T(3, 4, low=0.2, high=4.0)), case(2, T(5, low=0.5, high=3.0)),
         case(0, T(4, low=0.3, high=2.0)), case(3, T(2, 3, low=-1.8, high=-1.2)))
@formula
def polygamma(n: int, x: Tensor) -> Tensor:
    """The ``n``-th derivative of digamma (n = 0: digamma itself); n < 0 raises (as torch)."""
    result = kernel.polygamma(n, x)

    def backward(grad):
        return grad * ops.polygamma(n + 1, x)

    return result, backward


@samples(T(3, 4, low=0.05, high=0.95), case(T(4, 5, low=0.02, high=0.98), 0.1),
         case(T(6, low=0.3, high=0.7), 0.0))
@formula
def logit(x: Tensor, eps: Optional[float] = None) -> Tensor:
    """``log(z / (1 - z))`` with z = x clamped to [eps, 1 - eps] when ``eps`` is given. The
    gradient is ``1 / (x (1 - x))``, zero where the clamp acts; without ``eps`` it is NaN
    outside [0, 1] (as torch)."""
    z = x if eps is None else kernel.clamp(x, eps, 1.0 - eps)
    result = kernel.log(kernel.div(z, kernel.sub(kernel.scalar_like(z, 1.0), z)))

    def backward(grad):
        inside = grad / (x * (1.0 - x))
        if eps is None:
            below = ops.cast(x < 0.0, grad.dtype)
            above = ops.cast(x > 1.0, grad.dtype)
            # 0 / 0: a constant NaN (NaN times inside would make double backward NaN too)
            return ops.where(below + above > 0.0, ops.zeros_like(inside) / 0.0, inside)
        low = ops.cast(x < eps, grad.dtype)
        high = ops.cast(x > 1.0 - eps, grad.dtype)
        return ops.where(low + high > 0.0, ops.zeros_like(inside), inside)

    return result, backward


@samples(case(T(3, 4), T(3, 4, low=0.2, high=3.0)), case(T(2, 1, 3), T(4, 1, low=0.5, high=2.0)),
         case(T(3, 4, zeros=((0, 1), (2, 3))), T(3, 4, low=0.2, high=3.0)))
@formula
def xlogy(x: Tensor, other: Tensor) -> Tensor:
    """``x * log(other)``, 0 where x == 0 (unless other is NaN), as torch. As torch's, the
    gradient for x is ``log(other)`` even at x == 0 (the Dirichlet and Beta log-densities rely on
    it at concentration 1), and 0 only where x == 0 and other <= 0."""
    safe = kernel.where(kernel.eq(x, kernel.scalar_like(x, 0.0)),
                        kernel.scalar_like(x, 0.0), kernel.mul(x, kernel.log(other)))
    result = kernel.where(kernel.ne(other, other), other, safe)

    def backward(grad):
        g = ops.xlogy(grad, other)
        grad_x = ops.where(other <= 0.0, ops.where(x == 0.0, ops.zeros_like(g), g), g)
        return grad_x, grad * x / other

    return result, backward
