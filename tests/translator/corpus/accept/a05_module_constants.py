"""Module-level numeric constants and ``math`` are allowed globals, never captures."""

import math

from transgrad.lang import Tensor, formula, kernel, ops

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
COEF = 0.044715
TWO: int = 2
USE_FAST = False


# captures: x:input
@formula
def gelu_tanh(x: Tensor) -> Tensor:
    inner = SQRT_2_OVER_PI * (1.0 + 3.0 * COEF) if USE_FAST else SQRT_2_OVER_PI
    result = kernel.mul(x, kernel.scalar_like(x, inner))

    def backward(grad):
        u = x * SQRT_2_OVER_PI * (1.0 + COEF * x * x)
        t = ops.tanh(u)
        return grad * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * SQRT_2_OVER_PI * (
            1.0 + 3.0 * COEF * x * x)) * (TWO / 2) * math.e / math.e

    return result, backward
