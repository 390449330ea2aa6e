from transgrad.lang import formula, helper, Tensor, Shape, Optional, kernel, ops


@formula
def scale(x: Tensor, y: Tensor) -> Tensor:
    result = kernel.mul(x, y)

    def backward(grad):
        return grad * y

    return result, backward
