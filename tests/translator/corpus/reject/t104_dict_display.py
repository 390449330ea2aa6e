from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula
def scaled(x: Tensor, mode: int) -> Tensor:
    factors = {0: 1.0, 1: 2.0}
    result = kernel.exp(x)

    def backward(grad):
        return grad * result

    return result, backward
