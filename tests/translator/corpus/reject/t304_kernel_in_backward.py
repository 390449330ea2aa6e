from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula
def exp(x: Tensor) -> Tensor:
    result = kernel.exp(x)

    def backward(grad):
        return kernel.mul(grad, result)

    return result, backward
