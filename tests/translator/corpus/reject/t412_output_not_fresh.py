from transgrad.lang import formula, helper, Tensor, Shape, Optional, kernel, ops


@formula
def identity(x: Tensor) -> Tensor:
    def backward(grad):
        return grad

    return x, backward
