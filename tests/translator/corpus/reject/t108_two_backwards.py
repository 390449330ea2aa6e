from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula
def sin(x: Tensor) -> Tensor:
    result = kernel.sin(x)

    def backward(grad):
        return grad * ops.cos(x)

    def backward(grad):
        return grad * ops.cos(x) * 1.0

    return result, backward
