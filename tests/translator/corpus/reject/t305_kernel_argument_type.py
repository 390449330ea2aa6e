from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula
def double(x: Tensor) -> Tensor:
    result = kernel.where(kernel.gt(x, 0.0), x, 0.0)

    def backward(grad):
        return grad * 2.0

    return result, backward
