from transgrad.lang import formula, helper, Tensor, Shape, Optional, kernel, ops


@helper
def pick(n: int) -> int:
    if n > 0:
        k = n
    return k
