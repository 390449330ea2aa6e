from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula
def tanh(x: Tensor) -> Tensor:
    result = kernel.tanh(x)
    t = kernel.mul(result, result)

    def backward(grad, t=t):
        return grad * (1.0 - t)

    return result, backward
