"""Neural-network formulas: layers, activations and losses.

Composites (no backward) where the inner ops already give a stable, exact gradient (linear,
mse_loss, nll_loss); fused formulas where stability, speed or memory needs them: activations
save only their input and recompute in backward; cross_entropy and layer_norm keep what is
costly to recompute as hidden outputs (Note [cross_entropy saves log-probabilities],
Note [layer_norm saves its statistics]).

Losses reduce to a 0-d tensor: the mean over the batch when ``mean`` is true, else the sum.
Strings are not a type of the formula language, so ``reduction="none"`` lives in
``nn.functional``, which calls the unreduced pieces (``*_unreduced``, ``log_softmax``, ...).
"""

import math

from transgrad.lang import (
    I,
    Optional,
    Shape,
    T,
    Tensor,
    case,
    formula,
    helper,
    kernel,
    ops,
    samples,
)

_SQRT_1_2 = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_K = math.sqrt(2.0 / math.pi)
_GELU_C = 0.044715


# ---------------------------------------------------------------------------------------------
# Layers


# Note [linear as one gemm]
# x (..., in) is flattened to rows (M, in) so that each of the three products is ONE gemm:
# forward rows @ weight^T, backward grad_rows @ weight and grad_rows^T @ rows, the weight's
# gradient with the inner dim M = every row of the batch. Written as matmul over x's batch dims
# (the composite this replaces), the weight's gradient was a gemm per batch item, of inner dim
# seq, then a sum over the batch, and an x transposed to sequence-first (MultiheadAttention's
# batch_first inputs) ran one small gemm per position. Reshaping a non-contiguous x copies it
# once, which costs less than those gemms. The forward's gemm also adds the bias (Note [linear's
# bias in the gemm] in csrc/kernels/linalg.cpp). The backward is in ops, so it is differentiable.


@samples(case(T(3, 4), T(5, 4), T(5)), case(T(2, 3, 4), T(5, 4)), case(T(4), T(2, 4), T(2)),
         case(T(2, 3, 2, 4), T(3, 4), T(3)))
@formula
def linear(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """``x @ weight.T + bias`` with torch's layout: weight is (out_features, in_features)
    (Note [linear as one gemm])."""
    if weight.ndim != 2 or x.ndim < 1 or x.shape[-1] != weight.shape[1]:
        m = math.prod(x.shape[:-1])
        k = x.shape[-1] if x.ndim else 0
        k2 = weight.shape[-1] if weight.ndim else 0
        n = weight.shape[0] if weight.ndim else 0
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({m}x{k} and {k2}x{n})")
    rows = math.prod(x.shape[:-1])
    flat_shape = (rows, weight.shape[1])
    product = kernel.linear_gemm(kernel.reshape(x, flat_shape), weight, bias)
    result = kernel.reshape(product, x.shape[:-1] + (weight.shape[0],))

    def backward(grad):
        g = ops.reshape(grad, (rows, weight.shape[0]))
        return (ops.reshape(ops.matmul_nd(g, weight), x.shape),
                ops.matmul_nd(ops.transpose(g, 0, 1), ops.reshape(x, flat_shape)),
                None if bias is None else ops.sum(g, (0,)))

    return result, backward


@helper
def add_optional(a: Optional[Tensor], b: Optional[Tensor]) -> Optional[Tensor]:
    """``a + b`` where None stands for a zero gradient."""
    return b if a is None else (a if b is None else a + b)


# Note [sdpa keeps its attention weights]
# scaled_dot_product_attention's core, softmax(q k^T scale + mask) (* drop) @ v, as one node: the
# forward is kernels (two batched gemms around the scale, the mask and the softmax in one pass,
# Note [attention_softmax in one pass] in csrc/kernels/reduce.cpp) and the backward is
# the chain written out (dV = P^T dO, dP = dO V^T, dS = P (dP - sum(dP P)), dQ = dS K scale,
# dK = dS^T Q scale) instead of six nodes each way. The backward needs the softmax P. Keeping it
# as a hidden output costs memory (L x S per head: 512 KB per layer at the transformer LM's sizes,
# bench/models.py TLM: 8 x 4 heads, L = S = 64, head 32); recomputing it in the backward costs the
# forward's gemm, scale, mask and softmax again: 0.30 ms there, against 0.40 ms for the whole
# forward and 0.95-1.05 ms for forward and backward (one thread, loaded machine). So P is a
# hidden output, and under double backward its own gradient (grad_weights) joins dP. ``mask``
# is additive (the API turns a boolean mask and is_causal into -inf entries) and may require
# grad: its gradient is dS, summed down to its shape by the engine. ``drop`` is dropout's mask
# (0 or 1 / (1 - p)), drawn by the API from the generator, so that the node stays a function of
# its inputs.


@helper
def attention_probs_grad(grad: Optional[Tensor], value: Tensor, drop: Optional[Tensor],
                         grad_weights: Optional[Tensor]) -> Tensor:
    """The gradient of the attention weights P: from the output through ``drop`` and ``value``,
    plus P's own gradient under double backward."""
    from_out = None if grad is None else ops.matmul_nd(grad, ops.transpose(value, -2, -1))
    dropped = from_out if drop is None or from_out is None else from_out * drop
    return add_optional(dropped, grad_weights)


@samples(case(T(2, 3, 4, 5), T(2, 3, 6, 5), T(2, 3, 6, 2), None, 0.5),
         case(T(2, 4, 3), T(2, 5, 3), T(2, 5, 4), T(4, 5), 0.7),
         case(T(3, 4, 2), T(3, 4, 2), T(3, 4, 3), T(1, 4, 4, requires_grad=False), 1.0,
              T(3, 4, 4, low=0.0, high=2.0, requires_grad=False)))
@formula(hidden_outputs=("weights",))
def sdpa(query: Tensor, key: Tensor, value: Tensor, mask: Optional[Tensor] = None,
         scale: float = 1.0, drop: Optional[Tensor] = None) -> Tensor:
    """``softmax(query @ key^T * scale + mask) * drop @ value`` over (..., L, E), (..., S, E),
    (..., S, Ev) with an additive ``mask`` (..., L, S) and dropout's scaled keep-mask ``drop``
    (Note [sdpa keeps its attention weights])."""
    product = kernel.matmul(query, kernel.transpose(key, -2, -1))
    weights = kernel.attention_softmax(product, scale, mask)
    result = kernel.matmul(weights if drop is None else kernel.mul(weights, drop), value)

    def backward(grad, grad_weights):
        d_weights = attention_probs_grad(grad, value, drop, grad_weights)
        d_scores = weights * (d_weights - ops.sum(d_weights * weights, (-1,), True))
        kept = weights if drop is None else weights * drop
        return (ops.matmul_nd(d_scores, key) * scale,
                ops.matmul_nd(ops.transpose(d_scores, -2, -1), query) * scale,
                None if grad is None else ops.matmul_nd(ops.transpose(kept, -2, -1), grad),
                None if mask is None else d_scores, None)

    return (result, weights), backward


# Note [layer_norm saves its statistics]
# The forward computes, over the trailing dims flattened to one (``flat``: x as (..., n)),
# mean and rstd = 1 / sqrt(var + eps). Recomputing them in the backward costs two reductions;
# saving forward intermediates would break the capture rule. So they are hidden outputs: the
# backward reads them as outputs of this node, and under double backward their own gradients
# arrive (grad_mean, grad_rstd) and are pushed back to x: d mean/dx = 1/n and
# d rstd/dx = -rstd^3 (x - mean) / n.
#
# Note [layer_norm over batch_norm's kernels]
# Viewed as (1, rows, n), x's rows are batch_norm's channels: batch_norm_stats gives each row's
# mean and biased variance, channel_affine normalises, and batch_norm_backward (with the weight
# folded into the incoming grad) is exactly the gradient rstd (g - mean(g) - xhat mean(g xhat))
# of the normalisation (Note [Fused batch_norm] in norm.py). Two passes forward and two backward
# where the kernels and ops written out took nine and a dozen, and the double backward stays
# exact: batch_norm_backward is a formula whose mean and rstd inputs are this node's hidden
# outputs.


@samples(case(T(3, 5), (5,), T(5), T(5)), case(T(2, 3, 4), (3, 4), None, None, 1e-3),
         case(T(2, 6), (6,), T(6), None), case(T(4, 3), (3,), None, T(3)))
@formula(hidden_outputs=("mean", "rstd"))
def layer_norm(x: Tensor, normalized_shape: Shape, weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    """Normalise over the trailing ``normalized_shape`` dims (biased variance, as torch),
    then scale by ``weight`` and shift by ``bias``."""
    # the size named (no -1), so that an input of no elements reshapes too
    flat_shape = x.shape[:x.ndim - len(normalized_shape)] + (math.prod(normalized_shape),)
    n = flat_shape[-1]
    rows = math.prod(flat_shape[:-1])
    rows_shape = (1, rows, n)  # Note [layer_norm over batch_norm's kernels]
    stats_shape = flat_shape[:-1] + (1,)
    x_rows = kernel.reshape(x, rows_shape)
    row_mean, row_var = kernel.batch_norm_stats(x_rows)
    row_rstd = kernel.rsqrt(kernel.add(row_var, eps))
    shift = kernel.neg(kernel.mul(row_mean, row_rstd))
    y = kernel.reshape(kernel.channel_affine(x_rows, row_rstd, shift), x.shape)
    scaled = y if weight is None else kernel.mul(y, weight)
    result = scaled if bias is None else kernel.add(scaled, bias)
    mean = kernel.reshape(row_mean, stats_shape)
    rstd = kernel.reshape(row_rstd, stats_shape)

    def backward(grad, grad_mean, grad_rstd):
        g = ops.zeros_like(x) if grad is None else (grad if weight is None else grad * weight)
        d_rows, row_sums = ops.batch_norm_backward(ops.reshape(g, rows_shape),
                                                   ops.reshape(x, rows_shape),
                                                   ops.reshape(mean, (rows,)),
                                                   ops.reshape(rstd, (rows,)))
        d_y = ops.reshape(d_rows, x.shape)
        xc = None if grad_rstd is None and (grad is None or weight is None) else (
            ops.reshape(x, flat_shape) - mean)
        d_mean = None if grad_mean is None else ops.expand(grad_mean / n, flat_shape)
        d_rstd = None if grad_rstd is None else grad_rstd * (-rstd * rstd * rstd) * xc / n
        from_stats = add_optional(d_mean, d_rstd)
        return (d_y if from_stats is None else d_y + ops.reshape(from_stats, x.shape),
                None if grad is None or weight is None
                else grad * ops.reshape(xc * rstd, x.shape),
                None if grad is None or bias is None else grad)

    return (result, mean, rstd), backward


# ---------------------------------------------------------------------------------------------
# Activations: the forward runs kernels; the backward recomputes from x with differentiable ops.


@samples(T(3, 4), case(T(3, 4), 2.0), case(T(3, 4, low=1.0, high=2.0), 1.0, 1.0))
@formula
def softplus(x: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta x)) / beta`` without overflow; ``x`` itself where beta x > threshold."""
    z = kernel.mul(x, kernel.scalar_like(x, beta))
    soft = kernel.add(kernel.relu(z), kernel.log1p(kernel.exp(kernel.neg(kernel.abs(z)))))
    result = kernel.where(kernel.gt(z, kernel.scalar_like(z, threshold)), x,
                          kernel.div(soft, kernel.scalar_like(soft, beta)))

    def backward(grad):
        return ops.softplus_backward(grad, x, beta, threshold)

    return result, backward


# Note [Activation backwards are ops]
# torch's activation backwards are ops of their own (softplus_backward, elu_backward,
# gelu_backward, log_sigmoid_backward, as relu's threshold_backward and tanh's tanh_backward in
# formulas/unary.py), so a double backward records one SoftplusBackwardBackward0 (edges: the
# incoming grad, then x) where a backward written in ops would record its where/mul/sigmoid
# nodes. Each is a formula here too, with torch's signature where the formula language has its
# types (gelu's ``approximate`` is a bool): its forward is the first derivative, its backward
# the second (differentiated in grad_output, which it is linear in, and in x), itself in ops so
# that a third order works.


@samples(case(T(3, 4), T(3, 4), 1.0, 20.0), case(T(3, 4), T(3, 4, low=-3.0, high=3.0), 2.0, 1.0))
@formula
def softplus_backward(grad_output: Tensor, x: Tensor, beta: float, threshold: float) -> Tensor:
    """softplus's gradient: ``grad_output sigmoid(beta x)``, ``grad_output`` where beta x >
    threshold (Note [Activation backwards are ops])."""
    z = kernel.mul(x, beta)
    result = kernel.where(kernel.gt(z, threshold), grad_output,
                          kernel.mul(grad_output, kernel.sigmoid(z)))

    def backward(grad):
        s = ops.sigmoid(x * beta)
        return (ops.softplus_backward(grad, x, beta, threshold),
                ops.where(x * beta > threshold, grad * 0.0,
                          grad * grad_output * (s * (1.0 - s) * beta)))

    return result, backward


@samples(T(3, 4), T(2, 3, 2, low=-6.0, high=6.0))
@formula
def silu(x: Tensor) -> Tensor:
    """``x * sigmoid(x)`` (also called swish)."""
    result = kernel.mul(x, kernel.sigmoid(x))

    def backward(grad):
        s = ops.sigmoid(x)
        return grad * (s * (1.0 + x * (1.0 - s)))

    return result, backward


@helper
def gelu_erf_grad(x: Tensor) -> Tensor:
    """d/dx of ``x Phi(x)``: ``Phi(x) + x phi(x)``."""
    return 0.5 * (1.0 + ops.erf(x * _SQRT_1_2)) + x * ops.exp(-0.5 * x * x) * _INV_SQRT_2PI


@helper
def gelu_tanh_grad(x: Tensor) -> Tensor:
    """d/dx of ``0.5 x (1 + tanh(k (x + c x^3)))``."""
    t = ops.tanh(_GELU_K * (x + _GELU_C * x * x * x))
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * _GELU_K * (1.0 + 3.0 * _GELU_C * x * x)


@samples(T(3, 4, low=-3.0, high=3.0), case(T(3, 4, low=-3.0, high=3.0), True))
@formula
def gelu(x: Tensor, approximate: bool = False) -> Tensor:
    """Exact GELU ``x Phi(x)`` through erf, or torch's tanh approximation (``approximate``)."""
    result = (0.5 * x * (1.0 + ops.tanh(_GELU_K * (x + _GELU_C * x * x * x))) if approximate
              else 0.5 * x * (1.0 + ops.erf(x * _SQRT_1_2)))

    def backward(grad):
        return ops.gelu_backward(grad, x, approximate)

    return result, backward


@helper
def gelu_erf_grad2(x: Tensor) -> Tensor:
    """d/dx of ``Phi(x) + x phi(x)``: ``phi(x) (2 - x^2)``."""
    return ops.exp(-0.5 * x * x) * _INV_SQRT_2PI * (2.0 - x * x)


@helper
def gelu_tanh_grad2(x: Tensor) -> Tensor:
    """d/dx of gelu_tanh_grad: with u = k (x + c x^3), t = tanh(u),
    ``(1 - t^2) (u' - x t u'^2 + 3 k c x^2)``."""
    t = ops.tanh(_GELU_K * (x + _GELU_C * x * x * x))
    du = _GELU_K * (1.0 + 3.0 * _GELU_C * x * x)
    return (1.0 - t * t) * (du - x * t * du * du + 3.0 * _GELU_K * _GELU_C * x * x)


@samples(case(T(3, 4), T(3, 4, low=-3.0, high=3.0)),
         case(T(3, 4), T(3, 4, low=-3.0, high=3.0), True))
@formula
def gelu_backward(grad_output: Tensor, x: Tensor, approximate: bool = False) -> Tensor:
    """gelu's gradient, ``grad_output`` times d/dx gelu(x) (Note [Activation backwards are
    ops])."""
    result = grad_output * (gelu_tanh_grad(x) if approximate else gelu_erf_grad(x))

    def backward(grad):
        curvature = gelu_tanh_grad2(x) if approximate else gelu_erf_grad2(x)
        return ops.gelu_backward(grad, x, approximate), grad * grad_output * curvature

    return result, backward


@samples(T(3, 4), case(T(3, 4), 0.5))
@formula
def elu(x: Tensor, alpha: float = 1.0) -> Tensor:
    """``x`` for x > 0, ``alpha (exp(x) - 1)`` otherwise."""
    result = kernel.where(kernel.gt(x, kernel.scalar_like(x, 0.0)), x,
                          kernel.mul(kernel.expm1(x), kernel.scalar_like(x, alpha)))

    def backward(grad):
        return ops.elu_backward(grad, alpha, 1.0, 1.0, False, x)

    return result, backward


@samples(case(T(3, 4), 1.0, 1.0, 1.0, False, T(3, 4)),
         case(T(3, 4), 0.5, 1.5, 2.0, False, T(3, 4)),
         case(T(3, 4), 1.2, 1.0, 0.5, True, T(3, 4, low=-1.1, high=2.0)))
@formula
def elu_backward(grad_output: Tensor, alpha: float, scale: float, input_scale: float,
                 is_result: bool, self_or_result: Tensor) -> Tensor:
    """elu's gradient as torch's elu_backward: ``grad_output scale`` above 0, below it
    ``grad_output input_scale alpha scale exp(input_scale x)`` from x, or ``grad_output
    input_scale (out + alpha scale)`` from the output (``is_result``, the in-place form) (Note
    [Activation backwards are ops])."""
    negative = (kernel.mul(grad_output, kernel.add(self_or_result, alpha * scale))
                if is_result else
                kernel.mul(grad_output, kernel.exp(kernel.mul(self_or_result, input_scale))))
    result = kernel.where(kernel.le(self_or_result, 0.0),
                          kernel.mul(negative,
                                     input_scale if is_result else input_scale * alpha * scale),
                          kernel.mul(grad_output, scale))

    def backward(grad):
        g = grad * grad_output
        coefficient = input_scale * input_scale * alpha * scale
        second = (g * input_scale if is_result else
                  g * ops.exp(self_or_result * input_scale) * coefficient)
        return (ops.elu_backward(grad, alpha, scale, input_scale, is_result, self_or_result),
                ops.where(self_or_result <= 0.0, second, grad * 0.0))

    return result, backward


@samples(T(3, 4), case(T(3, 4), 0.2))
@formula
def leaky_relu(x: Tensor, negative_slope: float = 0.01) -> Tensor:
    """``x`` for x > 0, ``negative_slope x`` otherwise."""
    result = kernel.where(kernel.gt(x, kernel.scalar_like(x, 0.0)), x,
                          kernel.mul(x, kernel.scalar_like(x, negative_slope)))

    def backward(grad):
        return ops.leaky_relu_backward(grad, x, negative_slope, False)

    return result, backward


@samples(case(T(3, 4), T(3, 4), 0.01, False), case(T(5), T(5), 0.2, False))
@formula
def leaky_relu_backward(grad_output: Tensor, x: Tensor, negative_slope: float,
                        self_is_result: bool) -> Tensor:
    """leaky_relu's gradient, ``grad_output`` above 0 and ``negative_slope grad_output`` below
    (torch's signature; ``self_is_result`` reads the sign from the output, which is the same
    sign for a positive slope). Its derivative in x is zero, as torch's: a double backward records
    LeakyReluBackwardBackward0 with an edge to x (Note [Activation backwards are ops])."""
    result = kernel.where(kernel.gt(x, 0.0), grad_output, kernel.mul(grad_output, negative_slope))

    def backward(grad):
        return ops.leaky_relu_backward(grad, x, negative_slope, False), ops.zeros_like(grad)

    return result, backward


@samples(T(3, 4), case(T(3, 4), 0.8), case(T(2, 3, 2, low=-3.0, high=3.0), 1.5))
@formula
def hardshrink(x: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``|x| > lambd``, else 0 (NaN stays NaN, as torch)."""
    keep = kernel.gt(kernel.abs(x), kernel.scalar_like(x, lambd))
    result = kernel.where(keep, x, kernel.mul(x, kernel.scalar_like(x, 0.0)))

    def backward(grad):
        return ops.where(ops.abs(x) > lambd, grad, grad * 0.0)

    return result, backward


@samples(T(3, 4), case(T(3, 4), 0.8), case(T(2, 3, 2, low=-3.0, high=3.0), 1.5))
@formula
def softshrink(x: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0: ``x`` less its
    clamp to [-lambd, lambd]."""
    result = kernel.sub(x, kernel.clamp(x, -lambd, lambd))

    def backward(grad):
        return ops.where(ops.abs(x) > lambd, grad, grad * 0.0)

    return result, backward


@samples(T(3, 4), T(2, 5, low=-30.0, high=30.0))
@formula
def logsigmoid(x: Tensor) -> Tensor:
    """``log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|))``, stable for large |x|; torch's node is
    LogSigmoidBackward0 (its log_sigmoid_forward)."""
    result = kernel.sub(kernel.minimum(x, kernel.scalar_like(x, 0.0)),
                        kernel.log1p(kernel.exp(kernel.neg(kernel.abs(x)))))

    def backward(grad):
        return ops.log_sigmoid_backward(grad, x)

    return result, backward


@samples(case(T(3, 4), T(3, 4)), case(T(5), T(5, low=-30.0, high=30.0)))
@formula
def log_sigmoid_backward(grad_output: Tensor, x: Tensor) -> Tensor:
    """logsigmoid's gradient, ``grad_output sigmoid(-x)`` (torch's log_sigmoid_backward without
    its CPU buffer; Note [Activation backwards are ops])."""
    result = kernel.mul(grad_output, kernel.sigmoid(kernel.neg(x)))

    def backward(grad):
        s = ops.sigmoid(x)
        return ops.log_sigmoid_backward(grad, x), -(grad * grad_output * s * (1.0 - s))

    return result, backward


# ---------------------------------------------------------------------------------------------
# Losses


@samples(case(T(4, 3), T(4, 3)), case(T(5), T(5), False))
@formula
def mse_loss(input: Tensor, target: Tensor, mean: bool = True) -> Tensor:
    """Mean (or sum) of ``(input - target)^2`` over all elements of two tensors of one shape;
    one MseLossBackward0 node, as torch's."""
    scale = 1.0 / input.numel if mean and input.numel > 0 else 1.0
    diff = kernel.sub(input, target)
    squares = kernel.mul(diff, diff)
    total = kernel.sum(squares)
    result = (kernel.div(total, kernel.scalar_like(total, input.numel)) if mean else total)

    def backward(grad):
        d = (input - target) * (grad * (2.0 * scale))
        return d, -d

    return result, backward


# torch's at::Reduction codes, the ``reduction`` of the loss formulas that take one
REDUCTION_NONE = 0
REDUCTION_MEAN = 1


@samples(case(T(3, 4, low=0.05, high=0.95), T(3, 4, low=0.0, high=1.0)),
         case(T(5, low=0.05, high=0.95), T(5, low=0.0, high=1.0), 2),
         case(T(2, 3, low=0.05, high=0.95), T(2, 3, low=0.0, high=1.0), 0))
@formula
def binary_cross_entropy(input: Tensor, target: Tensor, reduction: int = 1) -> Tensor:
    """``-(t log x + (1 - t) log(1 - x))`` of probabilities ``x``, each log clamped at -100 as
    torch's, reduced by torch's code (0 none, 1 mean, 2 sum); one BinaryCrossEntropyBackward0
    node with torch's gradients: ``(x - t) / max(x (1 - x), 1e-12)`` and ``log(1 - x) - log x``."""
    scale = (1.0 / input.numel if reduction == REDUCTION_MEAN and input.numel > 0 else 1.0)
    one = kernel.scalar_like(input, 1.0)
    log_x = kernel.clamp(kernel.log(input), -100.0, None)
    log_1mx = kernel.clamp(kernel.log(kernel.sub(one, input)), -100.0, None)
    loss = kernel.neg(kernel.add(kernel.mul(target, log_x),
                                 kernel.mul(kernel.sub(one, target), log_1mx)))
    total = kernel.sum(loss)
    result = (loss if reduction == REDUCTION_NONE else
              kernel.div(total, kernel.scalar_like(total, input.numel))
              if reduction == REDUCTION_MEAN else total)

    def backward(grad):
        g = grad * scale
        return (g * (input - target) / ops.clamp(input * (1.0 - input), 1e-12, None),
                g * (ops.log(1.0 - input) - ops.log(input)))

    return result, backward


# Note [cross_entropy saves log-probabilities]
# The gradient of cross_entropy is softmax(logits) - onehot(target). Recomputing softmax in the
# backward costs a second pass, and saving it as a forward intermediate would break the capture
# rule (double backward would not see how it depends on logits). So the log-probabilities are
# a hidden output: the backward reads them as an output of this node, and their own gradient
# (non-zero only under double backward) arrives as ``grad_logp`` and is pushed through
# log_softmax's backward, ``g - softmax * sum(g)``. Either grad may be None: under double
# backward only ``grad_logp`` may arrive.


@samples(case(T(4, 5), I(4, high=5)), case(T(3, 6), I(3, high=6), False))
@formula(hidden_outputs=("logp",))
def cross_entropy(logits: Tensor, target: Tensor, mean: bool = True) -> Tensor:
    """``-log_softmax(logits)[i, target[i]]`` over rows (N, C), averaged over N (or summed)."""
    rows = logits.shape[0]
    n = rows if mean else 1
    logp = kernel.log_softmax(logits, 1)
    picked = kernel.gather(logp, 1, kernel.unsqueeze(target, 1))
    total = kernel.neg(kernel.sum(picked, (0, 1), False))
    result = kernel.div(total, kernel.scalar_like(total, n))

    def backward(grad, grad_logp):
        probs = ops.exp(logp)
        g = None if grad is None else ops.expand(ops.reshape(grad, (1, 1)), (rows, 1)) / n
        from_loss = (None if g is None
                     else ops.scatter_add(probs * g, 1, ops.unsqueeze(target, 1), -g))
        from_logp = (None if grad_logp is None
                     else grad_logp - probs * ops.sum(grad_logp, (1,), True))
        return (from_loss if from_logp is None
                else from_logp if from_loss is None else from_loss + from_logp), None

    return (result, logp), backward


@samples(case(T(4, 5, high=0.0), I(4, high=5)),
         case(T(4, 5, high=0.0), I(4, high=5), T(5, low=0.5, high=2.0, requires_grad=False)),
         case(T(3, 6, high=0.0), I(3, high=6), None, -100, False))
@formula
def nll_loss(logp: Tensor, target: Tensor, weight: Optional[Tensor] = None,
             ignore_index: int = -100, mean: bool = True) -> Tensor:
    """``-logp[i, target[i]] * weight[target[i]]``, summed or divided by the summed weights;
    rows whose target is ``ignore_index`` count for nothing."""
    keep = target != ignore_index
    safe = ops.where(keep, target, target * 0)
    picked = ops.squeeze(ops.gather(logp, 1, ops.unsqueeze(safe, 1)), (1,))
    w = ops.cast(keep, logp.dtype) if weight is None else ops.index_select(
        weight, 0, safe) * ops.cast(keep, logp.dtype)
    total = -ops.sum(picked * w)
    return total / ops.sum(w) if mean else total


@samples(case(T(3, 4), T(3, 4, low=0.0, high=1.0)),
         case(T(3, 4), T(3, 4, low=0.0, high=1.0), T(4, low=0.5, high=2.0),
              T(4, low=0.5, high=3.0)))
@formula
def binary_cross_entropy_with_logits_unreduced(input: Tensor, target: Tensor,
                                               weight: Optional[Tensor] = None,
                                               pos_weight: Optional[Tensor] = None) -> Tensor:
    """Elementwise ``-w [p t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))]``, computed as
    ``w [(1 - t) x + (1 + (p - 1) t) softplus(-x)]`` so that no exp overflows."""
    softplus_neg = kernel.add(kernel.relu(kernel.neg(input)),
                              kernel.log1p(kernel.exp(kernel.neg(kernel.abs(input)))))
    one = kernel.scalar_like(input, 1.0)
    log_weight = one if pos_weight is None else kernel.add(
        one, kernel.mul(kernel.sub(pos_weight, one), target))
    loss = kernel.add(kernel.mul(kernel.sub(one, target), input),
                      kernel.mul(log_weight, softplus_neg))
    result = loss if weight is None else kernel.mul(loss, weight)

    def backward(grad):
        sp = ops.relu(-input) + ops.log1p(ops.exp(-ops.abs(input)))
        gw = grad if weight is None else grad * weight
        d_input = ((1.0 - target) - ops.sigmoid(-input) if pos_weight is None
                   else (1.0 - target) - (1.0 + (pos_weight - 1.0) * target) * ops.sigmoid(-input))
        d_target = -input if pos_weight is None else (pos_weight - 1.0) * sp - input
        unweighted = ((1.0 - target) * input + sp if pos_weight is None
                      else (1.0 - target) * input + (1.0 + (pos_weight - 1.0) * target) * sp)
        return (gw * d_input, gw * d_target, None if weight is None else grad * unweighted,
                None if pos_weight is None else gw * target * sp)

    return result, backward


@samples(case(T(3, 4), T(3, 4, low=0.0, high=1.0)),
         case(T(5), T(5, low=0.0, high=1.0), None, T(5, low=0.5, high=3.0), False))
@formula
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Optional[Tensor] = None,
                                     pos_weight: Optional[Tensor] = None,
                                     mean: bool = True) -> Tensor:
    """The mean (or sum) of ``binary_cross_entropy_with_logits_unreduced``."""
    loss = ops.binary_cross_entropy_with_logits_unreduced(input, target, weight, pos_weight)
    return ops.mean(loss) if mean else ops.sum(loss)
