"""once_differentiable: kernels are allowed in the backward (the node refuses double backward)."""

from transgrad.lang import Tensor, formula, kernel


# captures: x:input
@formula(once_differentiable=True)
def erf_scaled(x: Tensor) -> Tensor:
    result = kernel.erf(x)

    def backward(grad):
        two_over_sqrt_pi = 1.1283791670955126
        d = kernel.exp(kernel.neg(kernel.mul(x, x)))
        return kernel.mul(grad, kernel.mul(d, kernel.scalar_like(d, two_over_sqrt_pi)))

    return result, backward


# captures: result:output
@formula(once_differentiable=True, materialize_grads=True)
def sort_of_identity(x: Tensor) -> Tensor:
    result = kernel.clone(x)

    def backward(grad):
        return kernel.mul(grad, kernel.ones_like(result))

    return result, backward
