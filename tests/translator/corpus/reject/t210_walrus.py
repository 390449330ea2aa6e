from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula
def exp_squared(x: Tensor) -> Tensor:
    result = kernel.mul((e := kernel.exp(x)), e)

    def backward(grad):
        return grad * 2.0 * result

    return result, backward
