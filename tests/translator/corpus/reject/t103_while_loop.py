from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula
def spin(x: Tensor, n: int) -> Tensor:
    result = kernel.exp(x)
    while n > 0:
        n = n - 1

    def backward(grad):
        return grad * result

    return result, backward
