from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula
def double_exp(x: Tensor) -> Tensor:
    twice = lambda t: kernel.add(t, t)
    result = twice(kernel.exp(x))

    def backward(grad):
        return grad * result

    return result, backward
