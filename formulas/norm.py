"""Batch normalisation: ``batch_norm_train``, one fused formula over the batch's statistics, with
``batch_norm_backward`` as its differentiable backward; ``batch_norm``, the composite torch's
``batch_norm`` maps to (training: ``batch_norm_train``; eval: the running statistics).

Note [Fused batch_norm]
Training normalises each channel c of x (N, C, ...) by its batch mean and biased variance over
the M = N * L values of every other dim. The forward is two kernels, ``batch_norm_stats`` (mean
and variance per channel) and ``channel_affine`` (x * scale + shift with scale = weight * rstd and
shift = bias - mean * scale), where the composite over layer_norm it replaces transposed x to
(C, M) and back and ran a dozen ops each way (bench/cnn_step.py: 0.32 ms forward and 0.15 ms
backward for the first BatchNorm2d, against torch's 0.09 and 0.01). The statistics are outputs
of the node, as layer_norm's hidden ones (Note [layer_norm saves its statistics] in nn.py), but
visible: the API updates the running statistics from them instead of a second pass over x
(torch's native_batch_norm returns them too). Their gradients, when something uses them
(double backward, or a caller differentiating through them), go back to x: d mean / dx = 1 / M
and d var / dx = 2 (x - mean) / M.

The gradient, grad_x = weight rstd (g - mean(g) - xhat mean(g xhat)) with xhat = (x - mean) rstd,
plus the weight's sum(g xhat) and the bias's sum(g), is one kernel (two passes over g and x) and
itself a formula, ``batch_norm_backward``, whose own backward (in ops) is the derivative of that
expression with mean and rstd as independent inputs: they are outputs of the forward node, so
a double backward reaches x through them as well. With u, v the grads of grad_x and of the sums
(v0 for sum(g), v1 for sum(g xhat)), A = weight rstd, Sg = sum(g), Sgx = sum(g xhat), and
mean_c() the per-channel mean:

    d g    = A (u - mean_c(u) - xhat mean_c(u xhat)) + v0 + v1 xhat
    d xhat = -A (u Sgx / M + g mean_c(u xhat)) + v1 g,  then d x = d xhat rstd,
             d mean = -sum(d xhat) rstd, and d rstd = sum(d xhat (x - mean)) + d A weight
    d A    = sum(u g) - mean_c(u) Sg - mean_c(u xhat) Sgx,  d weight = d A rstd.

The running-statistics update (momentum, unbiased variance) is state, not differentiable maths:
it lives in the API (``transgrad.batch_norm`` / nn's BatchNorm).
"""

import math

from transgrad.lang import Optional, T, Tensor, case, formula, helper, kernel, ops, samples


@helper
def column(t: Tensor) -> Tensor:
    """A per-channel (C,) tensor as (C, 1), broadcasting against x viewed as (N, C, L)."""
    return ops.unsqueeze(t, -1)


@helper
def channel_sum(t: Tensor) -> Tensor:
    """(N, C, L) -> (C,): the sum over every value of each channel."""
    return ops.sum(t, (0, 2))


@helper
def stats_grad(xf: Tensor, mean: Tensor, grad_mean: Optional[Tensor],
               grad_var: Optional[Tensor], count: int) -> Optional[Tensor]:
    """The gradient (N, C, L) reaching x through the batch mean and biased variance, or None
    when neither has a gradient (Note [Fused batch_norm])."""
    from_var = (None if grad_var is None
                else (xf - column(mean)) * column(grad_var * (2.0 / count)))
    if grad_mean is None:
        return from_var
    from_mean = column(grad_mean / count)
    return ops.expand(from_mean, xf.shape) if from_var is None else from_var + from_mean


@samples(case(T(4, 3), T(3), T(3)), case(T(3, 2, 4, 2), T(2, low=0.5, high=2.0), T(2), 1e-3),
         case(T(2, 3, 5)), case(T(5, 2, 3), None, T(2)), case(T(3, 2, 2, 2), T(2), None))
@formula
def batch_norm_train(x: Tensor, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,
                     eps: float = 1e-5) -> (Tensor, Tensor, Tensor):
    """Normalise (N, C, ...) per channel C by the batch's mean and biased variance, then
    ``* weight + bias`` (C,); returns (result, mean, var) (Note [Fused batch_norm])."""
    if x.ndim < 2:
        raise ValueError(f"batch_norm: expected an input of at least 2 dims, got {x.shape}")
    mean, var = kernel.batch_norm_stats(x)
    rstd = kernel.rsqrt(kernel.add(var, eps))
    scale = rstd if weight is None else kernel.mul(weight, rstd)
    offset = kernel.mul(mean, scale)
    result = kernel.channel_affine(x, scale,
                                   kernel.neg(offset) if bias is None else kernel.sub(bias, offset))
    flat_shape = (x.shape[0], x.shape[1], math.prod(x.shape[2:]))
    count = x.shape[0] * flat_shape[2]

    def backward(grad, grad_mean, grad_var):
        r = ops.rsqrt(var + eps)
        d_out, sums = ops.batch_norm_backward(ops.zeros_like(x) if grad is None else grad, x,
                                              mean, r, weight)
        from_stats = stats_grad(ops.reshape(x, flat_shape), mean, grad_mean, grad_var, count)
        return (d_out if from_stats is None else d_out + ops.reshape(from_stats, x.shape),
                None if weight is None else ops.select(sums, 0, 1),
                None if bias is None else ops.select(sums, 0, 0))

    return (result, mean, var), backward


@samples(case(T(4, 3), T(4, 3), T(3), T(3, low=0.5, high=2.0), T(3)),
         case(T(2, 3, 5), T(2, 3, 5), T(3), T(3, low=0.5, high=2.0)),
         case(T(3, 2, 2, 2), T(3, 2, 2, 2), T(2), T(2, low=0.5, high=2.0), T(2)))
@formula(materialize_grads=True)
def batch_norm_backward(grad: Tensor, x: Tensor, mean: Tensor, rstd: Tensor,
                        weight: Optional[Tensor] = None) -> (Tensor, Tensor):
    """batch_norm_train's gradient for incoming ``grad``: (grad_x, sums), sums (2, C) =
    (sum(grad), sum(grad xhat)), the bias's and the weight's (Note [Fused batch_norm])."""
    grad_x, sums = kernel.batch_norm_backward(grad, x, mean, rstd, weight)
    flat_shape = (x.shape[0], x.shape[1], math.prod(x.shape[2:]))
    count = x.shape[0] * flat_shape[2]

    def backward(u_out, u_sums):
        g = ops.reshape(grad, flat_shape)
        xc = ops.reshape(x, flat_shape) - column(mean)
        xhat = xc * column(rstd)
        u = ops.reshape(u_out, flat_shape)
        a = rstd if weight is None else weight * rstd
        s_g = channel_sum(g)
        s_gx = channel_sum(g * xhat)
        u_mean = channel_sum(u) / count
        u_xhat = channel_sum(u * xhat) / count
        v0 = column(ops.select(u_sums, 0, 0))
        v1 = column(ops.select(u_sums, 0, 1))
        projected = u - column(u_mean) - xhat * column(u_xhat)
        d_g = column(a) * projected + v0 + v1 * xhat
        d_xhat = v1 * g - column(a) * (u * column(s_gx / count) + g * column(u_xhat))
        d_a = channel_sum(u * g) - u_mean * s_g - u_xhat * s_gx
        d_rstd = channel_sum(d_xhat * xc) + (d_a if weight is None else d_a * weight)
        return (ops.reshape(d_g, x.shape), ops.reshape(d_xhat * column(rstd), x.shape),
                -channel_sum(d_xhat) * rstd, d_rstd, None if weight is None else d_a * rstd)

    return (grad_x, sums), backward


@samples(case(T(4, 3), None, None, T(3), T(3), True),
         case(T(3, 2, 4, 2), None, None, T(2), T(2), True, 1e-3),
         case(T(2, 3, 5), None, None, None, None, True),
         case(T(3, 2, 2, 2), T(2, requires_grad=False),
              T(2, low=0.5, high=2.0, requires_grad=False), T(2), T(2), False),
         case(T(4, 3), T(3), T(3, low=0.5, high=2.0), None, None, False))
@formula
def batch_norm(x: Tensor, running_mean: Optional[Tensor] = None,
               running_var: Optional[Tensor] = None, weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, training: bool = False,
               eps: float = 1e-5) -> Tensor:
    """Normalise (N, C, ...) per channel C: with the batch's mean and biased variance when
    ``training`` (``batch_norm_train``), else with ``running_mean`` / ``running_var``; then
    ``* weight + bias`` (C,)."""
    if x.ndim < 2:
        raise ValueError(f"batch_norm: expected an input of at least 2 dims, got {x.shape}")
    if training:
        result, batch_mean, batch_var = ops.batch_norm_train(x, weight, bias, eps)
        return result
    if running_mean is None or running_var is None:
        raise ValueError("batch_norm: eval mode needs running_mean and running_var")
    flat = ops.reshape(x, (x.shape[0], x.shape[1], math.prod(x.shape[2:])))
    rstd = ops.rsqrt(running_var + eps)
    scale = rstd if weight is None else rstd * weight
    normed = (flat - column(running_mean)) * column(scale)
    return ops.reshape(normed if bias is None else normed + column(bias), x.shape)
