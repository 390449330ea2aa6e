"""Elementwise formulas of torch's derivative table (issue 15) that are not special functions:
hyperbolic and inverse trigonometric functions, exp2, atan2, hypot, sgn, nan_to_num,
logaddexp, lerp, addcmul, addcdiv, trunc, fmod, remainder and the rounding divisions.

Stage: formulas. Kernels: csrc/kernels/pointwise.cpp, reference/kernels_special.py. Binary
backwards return broadcast-shaped gradients (the engine sums them down). The rounding ops
(trunc, div_trunc, div_floor) are piecewise constant: their gradient is zero, as torch's.
"""

import math

from transgrad.lang import Optional, Scalar, T, Tensor, case, formula, kernel, ops, samples

LN2 = math.log(2.0)

# ---------------------------------------------------------------------------------------------
# Hyperbolic and inverse trigonometric


@samples(T(3, 4))
@formula
def sinh(x: Tensor) -> Tensor:
    result = kernel.sinh(x)

    def backward(grad):
        return grad * ops.cosh(x)

    return result, backward


@samples(T(3, 4))
@formula
def cosh(x: Tensor) -> Tensor:
    result = kernel.cosh(x)

    def backward(grad):
        return grad * ops.sinh(x)

    return result, backward


@samples(T(3, 4, low=-3.0, high=3.0))
@formula
def asinh(x: Tensor) -> Tensor:
    result = kernel.asinh(x)

    def backward(grad):
        return grad * ops.rsqrt(x * x + 1.0)

    return result, backward


@samples(T(3, 4, low=1.1, high=3.0), T(2, 3, low=1.0, high=3.0, levels=3))
@formula
def acosh(x: Tensor) -> Tensor:
    """Defined for x >= 1 (NaN below); the gradient is infinite at 1."""
    result = kernel.acosh(x)

    def backward(grad):
        return grad * ops.rsqrt(x * x - 1.0)

    return result, backward


@samples(T(3, 4, low=-0.9, high=0.9), T(2, 3, low=-1.0, high=1.0, levels=3))
@formula
def atanh(x: Tensor) -> Tensor:
    """Defined on [-1, 1] (+-inf at the ends, NaN outside)."""
    result = kernel.atanh(x)

    def backward(grad):
        return grad / (1.0 - x * x)

    return result, backward


@samples(T(3, 4, low=-0.9, high=0.9), T(2, 3, low=-1.0, high=1.0, levels=3))
@formula
def asin(x: Tensor) -> Tensor:
    """Defined on [-1, 1]; the gradient is infinite at the ends."""
    result = kernel.asin(x)

    def backward(grad):
        return grad * ops.rsqrt(1.0 - x * x)

    return result, backward


@samples(T(3, 4, low=-0.9, high=0.9), T(2, 3, low=-1.0, high=1.0, levels=3))
@formula
def acos(x: Tensor) -> Tensor:
    """Defined on [-1, 1]; the gradient is infinite at the ends."""
    result = kernel.acos(x)

    def backward(grad):
        return -grad * ops.rsqrt(1.0 - x * x)

    return result, backward


@samples(T(3, 4, low=-3.0, high=3.0))
@formula
def atan(x: Tensor) -> Tensor:
    result = kernel.atan(x)

    def backward(grad):
        return grad / (x * x + 1.0)

    return result, backward


@samples(case(T(3, 4), T(3, 4)), case(T(2, 1, 3), T(4, 1)))
@formula
def atan2(x: Tensor, other: Tensor) -> Tensor:
    """The angle of the point (other, x): torch.atan2(input, other)."""
    result = kernel.atan2(x, other)

    def backward(grad):
        scale = grad / (x * x + other * other)
        return scale * other, -scale * x

    return result, backward


@samples(case(T(3, 4), T(3, 4)), case(T(2, 1, 3), T(4, 1)))
@formula
def hypot(x: Tensor, other: Tensor) -> Tensor:
    """``sqrt(x^2 + other^2)`` without overflow; the gradient is 0/0 (NaN) at the origin."""
    result = kernel.hypot(x, other)

    def backward(grad):
        return grad * x / result, grad * other / result

    return result, backward


# ---------------------------------------------------------------------------------------------
# Exponentials


@samples(T(3, 4))
@formula
def exp2(x: Tensor) -> Tensor:
    result = kernel.exp2(x)

    def backward(grad):
        return grad * result * LN2

    return result, backward


@samples(case(T(3, 4), T(3, 4)), case(T(2, 1, 3), T(4, 1)), case(T(3), T()))
@formula
def logaddexp(x: Tensor, other: Tensor) -> Tensor:
    """``log(exp(x) + exp(other))`` without overflow: the larger plus log1p of the smaller's
    exp. Each input's gradient is the softmax weight of the pair."""
    big = kernel.maximum(x, other)
    result = kernel.add(big, kernel.log1p(kernel.exp(kernel.neg(kernel.abs(kernel.sub(x, other))))))

    def backward(grad):
        return grad * ops.sigmoid(x - other), grad * ops.sigmoid(other - x)

    return result, backward


# ---------------------------------------------------------------------------------------------
# Sign and non-finite values


@samples(T(3, 4))
@formula
def sgn(x: Tensor) -> Tensor:
    """torch.sgn: ``x / |x|`` (0 at 0); for real tensors torch.sign, with a zero gradient. A node
    of its own (SgnBackward0, as torch's), since abs's backward multiplies by it."""
    result = kernel.sign(x)

    def backward(grad):
        return ops.zeros_like(grad)

    return result, backward


@samples(T(3, 4), case(T(2, 3), 1.5, 4.0, -4.0))
@formula
def nan_to_num(x: Tensor, nan: float = 0.0, posinf: Optional[float] = None,
               neginf: Optional[float] = None) -> Tensor:
    """NaN, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (default: the dtype's
    largest and lowest finite values). The gradient flows only where x is finite (as torch)."""
    result = kernel.nan_to_num(x, nan, posinf, neginf)

    def backward(grad):
        return grad * ops.cast(ops.abs(x) < math.inf, grad.dtype)  # NaN < inf is false

    return result, backward


# ---------------------------------------------------------------------------------------------
# Interpolation and fused multiply-adds (composites)


@samples(case(T(3, 4), T(3, 4), 0.3), case(T(2, 1, 3), T(4, 1), 0.8), case(T(3), T(3), -1.5))
@formula
def lerp(x: Tensor, end: Tensor, weight: Scalar) -> Tensor:
    """``x + weight * (end - x)``, torch.lerp with a number ``weight``."""
    return x + (end - x) * weight


@samples(case(T(3, 4), T(3, 4), T(3, 4)), case(T(2, 1, 3), T(4, 1), T(3)))
@formula
def lerp_tensor(x: Tensor, end: Tensor, weight: Tensor) -> Tensor:
    """``x + weight * (end - x)``, torch.lerp with a tensor ``weight`` (all three broadcast)."""
    return x + weight * (end - x)


@samples(case(T(3, 4), T(3, 4), T(3, 4)), case(T(4), T(3, 1), T(4), value=-0.5),
         case(T(3, 4), T(3, 4), T(3, 4), value=0.0))
@formula
def addcmul(x: Tensor, tensor1: Tensor, tensor2: Tensor, value: Scalar = 1) -> Tensor:
    """``x + value * tensor1 * tensor2`` (broadcast)."""
    return x + tensor1 * tensor2 * value


@samples(case(T(3, 4), T(3, 4), T(3, 4, low=0.5, high=2.0)),
         case(T(4), T(3, 1), T(4, low=-2.0, high=-0.5), value=2.5))
@formula
def addcdiv(x: Tensor, tensor1: Tensor, tensor2: Tensor, value: Scalar = 1) -> Tensor:
    """``x + value * tensor1 / tensor2`` (broadcast)."""
    return x + tensor1 / tensor2 * value


# ---------------------------------------------------------------------------------------------
# Rounding, remainders and rounding divisions


@samples(T(3, 4, low=-4.0, high=4.0))
@formula
def trunc(x: Tensor) -> Tensor:
    """Round toward zero; piecewise constant, so a zero gradient (as torch)."""
    result = kernel.trunc(x)

    def backward(grad):
        return ops.zeros_like(grad)

    return result, backward


@samples(case(T(3, 4, low=-5.0, high=5.0), T(3, 4, low=0.5, high=2.0)),
         case(T(2, 1, 3, low=-5.0, high=5.0), T(4, 1, low=-2.0, high=-0.5)))
@formula
def div_trunc(x: Tensor, other: Tensor) -> Tensor:
    """torch.div(x, other, rounding_mode="trunc"); int64 stays int64. Zero gradient."""
    result = kernel.trunc_divide(x, other)

    def backward(grad):
        zero = ops.zeros_like(grad)
        return zero, zero

    return result, backward


@samples(case(T(3, 4, low=-5.0, high=5.0), T(3, 4, low=0.5, high=2.0)),
         case(T(2, 1, 3, low=-5.0, high=5.0), T(4, 1, low=-2.0, high=-0.5)))
@formula
def div_floor(x: Tensor, other: Tensor) -> Tensor:
    """torch.div(x, other, rounding_mode="floor") and torch.floor_divide (Python's //);
    int64 stays int64. Zero gradient."""
    result = kernel.floor_divide(x, other)

    def backward(grad):
        zero = ops.zeros_like(grad)
        return zero, zero

    return result, backward


@samples(case(T(3, 4, low=-5.0, high=5.0), T(3, 4, low=0.5, high=2.0)),
         case(T(2, 1, 3, low=-5.0, high=5.0), T(4, 1, low=-2.0, high=-0.5)))
@formula
def fmod(x: Tensor, other: Tensor) -> Tensor:
    """C's fmod: ``x - trunc(x / other) * other``, the sign of x."""
    result = kernel.fmod(x, other)

    def backward(grad):
        return grad, -grad * ops.div_trunc(x, other)

    return result, backward


@samples(case(T(3, 4, low=-5.0, high=5.0), T(3, 4, low=0.5, high=2.0)),
         case(T(2, 1, 3, low=-5.0, high=5.0), T(4, 1, low=-2.0, high=-0.5)))
@formula
def remainder(x: Tensor, other: Tensor) -> Tensor:
    """Python's %: ``x - floor(x / other) * other``, the sign of other."""
    result = kernel.remainder(x, other)

    def backward(grad):
        return grad, -grad * ops.div_floor(x, other)

    return result, backward
