"""Several outputs; only some differentiable; non-differentiable outputs may be captured."""

from transgrad.lang import Tensor, formula, kernel, ops


# captures: x:input:meta=shape dim:attribute:int indices:output keepdim:attribute:bool
@formula(differentiable_outputs=("values",))
def max_dim(x: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    values, indices = kernel.max_dim(x, dim, keepdim)

    def backward(grad):
        g = grad if keepdim else ops.unsqueeze(grad, dim)
        i = indices if keepdim else ops.unsqueeze(indices, dim)
        return ops.scatter_add(ops.zeros(x.shape, grad.dtype), dim, i, g)

    return (values, indices), backward


# captures: a:output b:output
@formula
def split_exp(x: Tensor) -> tuple[Tensor, Tensor]:
    a = kernel.exp(x)
    b = kernel.exp(kernel.neg(x))

    def backward(grad, grad_b):
        if grad is None:
            return -(grad_b * b)
        if grad_b is None:
            return grad * a
        return grad * a - grad_b * b

    return (a, b), backward
