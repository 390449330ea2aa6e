from transgrad.lang import formula, helper, Tensor, Shape, Optional, kernel, ops


@formula
def softsign(x: Tensor) -> Tensor:
    return x / (1.0 + ops.absolute(x))
