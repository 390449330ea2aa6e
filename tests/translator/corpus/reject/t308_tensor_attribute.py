from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula
def transpose_2d(x: Tensor) -> Tensor:
    result = kernel.transpose(x, 0, 1)

    def backward(grad):
        return grad.T

    return result, backward
