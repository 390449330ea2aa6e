from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula
def normalize_by_max(x: Tensor) -> Tensor:
    peak = kernel.item(kernel.amax(x, (0,), False)) + 1.0
    result = kernel.div(x, kernel.scalar_like(x, peak))

    def backward(grad):
        return grad / peak

    return result, backward
