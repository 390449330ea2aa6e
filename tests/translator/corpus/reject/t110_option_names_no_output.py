from transgrad.lang import formula, Tensor, Dims, kernel, ops


@formula(differentiable_outputs=("value",))
def max_dim(x: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    values, indices = kernel.max_dim(x, dim, keepdim)

    def backward(grad):
        return ops.index_add(ops.zeros_like(x), dim, indices, grad)

    return (values, indices), backward
