from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula
def scaled(x: Tensor) -> Tensor:
    result = kernel.mul(x, kernel.scalar_like(x, factor))

    def backward(grad):
        return grad * 2.0

    return result, backward
