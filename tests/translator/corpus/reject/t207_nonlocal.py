from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula
def exp(x: Tensor) -> Tensor:
    result = kernel.exp(x)
    calls = 0

    def backward(grad):
        nonlocal calls
        calls += 1
        return grad * result

    return result, backward
