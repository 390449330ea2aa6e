from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula
def softmax(x: Tensor, dim: int) -> Tensor:
    result = kernel.softmax(x, axis=dim)

    def backward(grad):
        return result * (grad - ops.sum(grad * result, (dim,), True))

    return result, backward
