from transgrad.lang import formula, helper, Tensor, Shape, Optional, kernel, ops


@formula
def twice_neg(x: Tensor) -> Tensor:
    return ops.neg(x, 2)
