from transgrad.lang import formula, Tensor, kernel, ops

SCALE = 9 ** 9 ** 9


@formula
def scaled(x: Tensor, k: int = 2**70) -> Tensor:
    return x * k
