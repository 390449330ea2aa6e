from transgrad.lang import formula, helper, Tensor, Shape, Optional, kernel, ops


@helper
def rank(s: Shape) -> int:
    n = len(s)
    n = s
    return len(n)
