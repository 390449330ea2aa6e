"""Batch normalisation: a composite over the fused layer_norm formula (training: statistics of
the batch) or plain ops (eval: running statistics).

Note [batch_norm over layer_norm]
Batch statistics are per channel over every other dim. Moving the channel dim last and
flattening gives rows (M, C); transposed to (C, M), layer_norm's statistics are exactly the
batch's (biased variance, as torch normalises with), and layer_norm is already a fused formula
whose double backward is exact (Note [layer_norm saves its statistics]). The running-statistics
update (momentum, unbiased variance) is state, not differentiable maths: it lives in the API
(``transgrad.batch_norm`` / nn's BatchNorm), which reads the batch mean and variance itself.
"""

from transgrad.lang import Optional, T, Tensor, case, formula, ops, samples


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
    ``training``, else with ``running_mean`` / ``running_var``; then ``* weight + bias`` (C,)."""
    if x.ndim < 2:
        raise ValueError(f"batch_norm: expected an input of at least 2 dims, got {x.shape}")
    if not training and (running_mean is None or running_var is None):
        raise ValueError("batch_norm: eval mode needs running_mean and running_var")
    c = x.shape[1]
    last = ops.transpose(x, 1, -1)
    rows = ops.reshape(last, (x.numel // c if c else 0, c))  # no -1: N may be 0
    normed = (ops.transpose(ops.layer_norm(ops.transpose(rows, 0, 1), (rows.shape[0],), None,
                                           None, eps), 0, 1)
              if training else (rows - running_mean) * ops.rsqrt(running_var + eps))
    scaled = normed if weight is None else normed * weight
    shifted = scaled if bias is None else scaled + bias
    return ops.transpose(ops.reshape(shifted, last.shape), 1, -1)
