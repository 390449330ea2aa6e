"""Hidden outputs: intermediates promoted to outputs so double backward flows through them."""

from transgrad.lang import Tensor, formula, kernel, ops


# captures: x:input mean:output rstd:output n:attribute:int
@formula(hidden_outputs=("mean", "rstd"))
def normalize_rows(x: Tensor, eps: float = 1e-5) -> tuple[Tensor, Tensor, Tensor]:
    n = x.shape[-1]
    mean = kernel.div(kernel.sum(x, (-1,), True), kernel.scalar_like(x, float(n)))
    centered = kernel.sub(x, mean)
    var = kernel.div(kernel.sum(kernel.mul(centered, centered), (-1,), True),
                     kernel.scalar_like(x, float(n)))
    rstd = kernel.rsqrt(kernel.add(var, kernel.scalar_like(var, eps)))
    result = kernel.mul(centered, rstd)

    def backward(grad, grad_mean, grad_rstd):
        xhat = (x - mean) * rstd
        g = rstd * (grad - ops.sum(grad, (-1,), True) / n
                    - xhat * ops.sum(grad * xhat, (-1,), True) / n)
        if grad_mean is not None:
            g = g + grad_mean / n
        if grad_rstd is not None:
            g = g - grad_rstd * rstd * rstd * rstd * (x - mean) / n
        return g

    return (result, mean, rstd), backward
