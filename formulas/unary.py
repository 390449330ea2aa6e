"""Elementwise unary formulas: one input tensor, output of the same shape.

Each backward is built from ops only, so it is itself differentiable (double backward). Where the
derivative is a function of the output (exp, sqrt, tanh, sigmoid, ...) the backward reads
``result`` rather than recomputing it from ``x``.
"""

from transgrad.lang import DType, Optional, T, Tensor, case, formula, kernel, ops, samples

TWO_OVER_SQRT_PI = 1.1283791670955126  # d/dx erf(x) = 2/sqrt(pi) * exp(-x^2)

# ---------------------------------------------------------------------------------------------
# Sign and magnitude


@samples(T(3, 4))
@formula
def neg(x: Tensor) -> Tensor:
    result = kernel.neg(x)

    def backward(grad):
        return -grad

    return result, backward


@samples(T(3, 4))
@formula(inplace_saves_copy=True)
def abs(x: Tensor) -> Tensor:
    result = kernel.abs(x)

    def backward(grad):
        return grad * ops.sgn(x)  # torch's: a double backward records SgnBackward0

    return result, backward


@samples(T(3, 4))
@formula
def sign(x: Tensor) -> Tensor:
    result = kernel.sign(x)

    def backward(grad):
        return ops.zeros_like(grad)

    return result, backward


@samples(T(3, 4))
@formula
def relu(x: Tensor) -> Tensor:
    result = kernel.relu(x)

    def backward(grad):
        return ops.threshold_backward(grad, result, 0.0)

    return result, backward


# torch's relu backward is threshold_backward(grad, result, 0), so that its double backward
# records ThresholdBackwardBackward0 as torch's does; linear in grad, so its own backward is itself.
@samples(case(T(3, 4), T(3, 4), 0.0), case(T(5), T(5), 0.25))
@formula
def threshold_backward(grad_output: Tensor, x: Tensor, threshold: float) -> Tensor:
    result = kernel.where(kernel.gt(x, kernel.scalar_like(x, threshold)), grad_output,
                          kernel.scalar_like(grad_output, 0.0))

    def backward(grad):
        return ops.threshold_backward(grad, x, threshold), None

    return result, backward


@samples(case(T(3, 4), -0.5, 0.5), case(T(5), min=-0.3), case(T(2, 3), max=0.7))
@formula(inplace_saves_copy=True)
def clamp(x: Tensor, min: Optional[float] = None, max: Optional[float] = None) -> Tensor:
    result = kernel.clamp(x, min, max)

    def backward(grad):
        return grad * ops.cast(result == x, grad.dtype)  # zero where clamped

    return result, backward


# ---------------------------------------------------------------------------------------------
# Exponentials and logarithms


@samples(T(3, 4))
@formula
def exp(x: Tensor) -> Tensor:
    result = kernel.exp(x)

    def backward(grad):
        return grad * result

    return result, backward


@samples(T(3, 4, low=0.1, high=2.0))
@formula
def log(x: Tensor) -> Tensor:
    result = kernel.log(x)

    def backward(grad):
        return grad / x

    return result, backward


@samples(T(3, 4, low=-0.9, high=2.0))
@formula
def log1p(x: Tensor) -> Tensor:
    result = kernel.log1p(x)

    def backward(grad):
        return grad / (x + 1.0)

    return result, backward


@samples(T(3, 4))
@formula
def expm1(x: Tensor) -> Tensor:
    result = kernel.expm1(x)

    def backward(grad):
        return grad * (result + 1.0)

    return result, backward


# ---------------------------------------------------------------------------------------------
# Powers


@samples(T(3, 4, low=0.1, high=2.0))
@formula
def sqrt(x: Tensor) -> Tensor:
    result = kernel.sqrt(x)

    def backward(grad):
        return grad / (result * 2.0)

    return result, backward


@samples(T(3, 4, low=0.1, high=2.0))
@formula
def rsqrt(x: Tensor) -> Tensor:
    result = kernel.rsqrt(x)

    def backward(grad):
        return grad * result * result * result * -0.5

    return result, backward


@samples(T(3, 4, low=0.5, high=2.0))
@formula
def reciprocal(x: Tensor) -> Tensor:
    result = kernel.reciprocal(x)

    def backward(grad):
        return -grad * result * result

    return result, backward


@samples(case(T(3, 4, low=0.1, high=2.0), 2.5), case(T(4), 3.0), case(T(2, 3), 0.0))
@formula
def pow_scalar(x: Tensor, exponent: float) -> Tensor:
    result = kernel.pow_scalar(x, exponent)

    def backward(grad):
        if exponent == 0.0:
            return ops.zeros_like(grad)
        return grad * ops.pow_scalar(x, exponent - 1.0) * exponent

    return result, backward


# ---------------------------------------------------------------------------------------------
# Trigonometric and hyperbolic


@samples(T(3, 4))
@formula
def sin(x: Tensor) -> Tensor:
    result = kernel.sin(x)

    def backward(grad):
        return grad * ops.cos(x)

    return result, backward


@samples(T(3, 4))
@formula
def cos(x: Tensor) -> Tensor:
    result = kernel.cos(x)

    def backward(grad):
        return -grad * ops.sin(x)

    return result, backward


@samples(T(3, 4, low=-1.2, high=1.2))
@formula
def tan(x: Tensor) -> Tensor:
    result = kernel.tan(x)

    def backward(grad):
        return grad * (result * result + 1.0)

    return result, backward


@samples(T(3, 4))
@formula
def tanh(x: Tensor) -> Tensor:
    result = kernel.tanh(x)

    def backward(grad):
        return ops.tanh_backward(grad, result)

    return result, backward


# torch's tanh and sigmoid backwards are ops of their own (tanh_backward, sigmoid_backward), so a
# double backward records TanhBackwardBackward0 / SigmoidBackwardBackward0 as torch's does.
@samples(case(T(3, 4), T(3, 4)))
@formula
def tanh_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    result = kernel.mul(grad_output, kernel.sub(kernel.scalar_like(output, 1.0),
                                                kernel.mul(output, output)))

    def backward(grad):
        return ops.tanh_backward(grad, output), -2.0 * output * grad * grad_output

    return result, backward


@samples(T(3, 4, low=-4.0, high=4.0))
@formula
def sigmoid(x: Tensor) -> Tensor:
    result = kernel.sigmoid(x)

    def backward(grad):
        return ops.sigmoid_backward(grad, result)

    return result, backward


@samples(case(T(3, 4), T(3, 4)))
@formula
def sigmoid_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    result = kernel.mul(grad_output, kernel.mul(output, kernel.sub(
        kernel.scalar_like(output, 1.0), output)))

    def backward(grad):
        return ops.sigmoid_backward(grad, output), grad * grad_output * (1.0 - 2.0 * output)

    return result, backward


@samples(T(3, 4))
@formula
def erf(x: Tensor) -> Tensor:
    result = kernel.erf(x)

    def backward(grad):
        return grad * ops.exp(-(x * x)) * TWO_OVER_SQRT_PI

    return result, backward


# ---------------------------------------------------------------------------------------------
# Dtype conversion


@samples(case(T(3, 4), "float64"))
@formula
def cast(x: Tensor, dtype: DType) -> Tensor:
    result = kernel.cast(x, dtype)

    def backward(grad):
        return ops.cast(grad, x.dtype)  # reads x's dtype only

    return result, backward
