from transgrad.lang import formula, helper, Tensor, Shape, Optional, kernel, ops


@helper
def both(s: Shape) -> int:
    a = b = len(s)
    return a + b
