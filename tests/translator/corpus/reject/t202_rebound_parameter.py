from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula
def abs_log(x: Tensor) -> Tensor:
    x = kernel.abs(x)
    result = kernel.log(x)

    def backward(grad):
        return grad / x

    return result, backward
