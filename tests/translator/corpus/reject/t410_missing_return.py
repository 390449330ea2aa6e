from transgrad.lang import formula, helper, Tensor, Shape, Optional, kernel, ops


@helper
def sign_of(n: int) -> int:
    if n > 0:
        return 1
    elif n < 0:
        return -1
