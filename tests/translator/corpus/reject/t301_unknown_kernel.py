from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula
def exp10(x: Tensor) -> Tensor:
    result = kernel.exp10(x)

    def backward(grad):
        return grad * result * 2.302585092994046

    return result, backward
