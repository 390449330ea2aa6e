from transgrad.lang import formula, helper, Tensor, Shape, Optional, kernel, ops


@helper
def power(a: int, k: int) -> int:
    return a ** k
