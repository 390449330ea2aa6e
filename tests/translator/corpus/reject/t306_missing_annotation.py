from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula
def scale(x: Tensor, factor) -> Tensor:
    return x * factor
