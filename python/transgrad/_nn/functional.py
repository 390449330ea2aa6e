"""nn.functional, engine-neutral: every function finds its engine from its tensor input
(``engine_of``), as the optimizers do, so ``transgrad.nn.functional`` and
``transgrad.reference.nn.functional`` re-export the same functions, called as in PyTorch:
``F.cross_entropy(logits, target)``. Each maps to a formula of ``formulas/nn.py`` (or of the
core families) wherever one exists; the string options PyTorch takes (``reduction``,
``approximate``) are decoded here, because the formula language has no strings. The
convolution, pooling and batch-norm functions delegate to the engine's PyTorch-style API
functions of the same names (``tg.conv2d`` ...: ``_api/extra_functions.py``), which already
decode torch's argument forms (ints or pairs, ``padding="same"``, unbatched inputs) and update
batch norm's running statistics in place.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .engine import Engine, engine_of

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")


def _reduce(E: Engine, loss: Any, reduction: str) -> Any:
    _check_reduction(reduction)
    if reduction == "none":
        return loss
    return loss.mean() if reduction == "mean" else loss.sum()


# ---------------------------------------------------------------------------------------------
# Layers


def linear(input: Any, weight: Any, bias: Any | None = None) -> Any:
    """``input @ weight.T + bias`` (weight is (out_features, in_features))."""
    E = engine_of(input)
    return E.op("linear")(input, weight, bias)


def embedding(input: Any, weight: Any) -> Any:
    """Rows of ``weight`` picked by the int64 ``input``: shape ``input.shape + (dim,)``."""
    E = engine_of(input)
    flat = input.reshape(-1)
    rows = E.op("index_select")(weight, 0, flat)
    return rows.reshape(tuple(input.shape) + (weight.shape[1],))


def layer_norm(input: Any, normalized_shape: Sequence[int], weight: Any = None,
               bias: Any = None, eps: float = 1e-5) -> Any:
    E = engine_of(input)
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(normalized_shape):]) != normalized_shape:
        raise ValueError(f"layer_norm: normalized_shape {normalized_shape} does not match the "
                         f"trailing dims of an input of shape {tuple(input.shape)}")
    return E.op("layer_norm")(input, normalized_shape, weight, bias, float(eps))


def dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``; the
    mask comes from the engine's generator (``manual_seed``). Identity when not training."""
    E = engine_of(input)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return _maybe_inplace(input, inplace, lambda x: x * 0.0)
    mask = E.bernoulli_mask(tuple(input.shape), 1.0 - p, input.dtype)
    return _maybe_inplace(input, inplace, lambda x: x * mask * (1.0 / (1.0 - p)))


def _channel_dropout(name: str, input: Any, p: float, training: bool, inplace: bool,
                     batched_ndim: int) -> Any:
    """Zero whole channels (every element of an (n, c) slice together) with probability
    ``p``, scale the rest by ``1 / (1 - p)``; inputs of ``batched_ndim`` dims or one fewer
    (unbatched)."""
    E = engine_of(input)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (batched_ndim - 1, batched_ndim):
        raise RuntimeError(f"{name}: Expected {batched_ndim - 1}D or {batched_ndim}D input, "
                           f"but received a {input.ndim}D input. Note that {name} exists to "
                           "provide channel-wise dropout on inputs with "
                           f"{batched_ndim - 2} spatial dimensions, a channel dimension, and "
                           "an optional batch dimension (i.e. "
                           f"{batched_ndim - 1}D or {batched_ndim}D inputs).")
    if not training or p == 0.0:
        return input
    lead = 1 if input.ndim == batched_ndim - 1 else 2
    shape = tuple(input.shape[:lead]) + (1,) * (input.ndim - lead)
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    mask = E.bernoulli_mask(shape, 1.0 - p, input.dtype)
    return _maybe_inplace(input, inplace, lambda x: x * mask * scale)


def dropout1d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """Channel-wise dropout of (N, C, L) or (C, L)."""
    return _channel_dropout("dropout1d", input, p, training, inplace, 3)


def dropout2d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """Channel-wise dropout of (N, C, H, W) or (C, H, W)."""
    return _channel_dropout("dropout2d", input, p, training, inplace, 4)


def dropout3d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """Channel-wise dropout of (N, C, D, H, W) or (C, D, H, W)."""
    return _channel_dropout("dropout3d", input, p, training, inplace, 5)


def alpha_dropout(input: Any, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Any:
    """Dropout that keeps SELU's zero mean and unit variance: dropped elements take SELU's
    negative saturation value, then an affine map restores the moments."""
    E = engine_of(input)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return _maybe_inplace(input, inplace, lambda x: x * 0.0)
    sat = -_SELU_ALPHA * _SELU_SCALE
    a = ((1.0 - p) * (1.0 + p * sat * sat)) ** -0.5
    b = -a * sat * p
    keep = E.bernoulli_mask(tuple(input.shape), 1.0 - p, input.dtype)
    return _maybe_inplace(input, inplace,
                          lambda x: (x * keep + (1.0 - keep) * sat) * a + b)


# ---------------------------------------------------------------------------------------------
# Convolution, pooling, batch norm (the engine's API functions; Note [Torch argument forms] in
# _api/extra_functions.py)


def _api(E: Engine, name: str) -> Any:
    fn = getattr(E.module, name, None)
    if fn is None:
        raise AttributeError(f"{E.name} has no function {name!r} (see "
                             f"_api/extra_functions.py)")
    return fn


def conv1d(input: Any, weight: Any, bias: Any = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Any:
    """1-D convolution (cross-correlation, as torch) of (N, C_in, L) or (C_in, L) by weight
    (C_out, C_in / groups, k); ``padding`` an int, "valid" or "same"."""
    E = engine_of(input)
    return _api(E, "conv1d")(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Any:
    """2-D convolution of (N, C_in, H, W) or (C_in, H, W) by weight (C_out, C_in / groups,
    kh, kw); window arguments an int or a pair, ``padding`` also "valid" or "same"."""
    E = engine_of(input)
    return _api(E, "conv2d")(input, weight, bias, stride, padding, dilation, groups)


def max_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """Max over windows (``stride`` defaults to ``kernel_size``); with ``return_indices``,
    also the flat index of each maximum in its input plane, as torch."""
    E = engine_of(input)
    return _api(E, "max_pool2d")(input, kernel_size, stride, padding, dilation,
                                 ceil_mode=ceil_mode, return_indices=return_indices)


def avg_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Any:
    E = engine_of(input)
    return _api(E, "avg_pool2d")(input, kernel_size, stride, padding, ceil_mode,
                                 count_include_pad, divisor_override)


def adaptive_avg_pool2d(input: Any, output_size: Any) -> Any:
    """Average over the windows that split H and W into ``output_size`` (an int or a pair;
    None keeps that dim), as torch."""
    E = engine_of(input)
    return _api(E, "adaptive_avg_pool2d")(input, output_size)


def batch_norm(input: Any, running_mean: Any, running_var: Any, weight: Any = None,
               bias: Any = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5) -> Any:
    """Normalise each channel (dim 1) of (N, C[, ...]): by the batch statistics when
    ``training`` (and then update the running stats in place, torch's momentum convention),
    else by ``running_mean`` / ``running_var``."""
    E = engine_of(input)
    if not training and (running_mean is None or running_var is None):
        raise ValueError("batch_norm: running_mean and running_var are needed when not "
                         "training")
    return _api(E, "batch_norm")(input, running_mean, running_var, weight, bias,
                                 bool(training), float(momentum), float(eps))


# ---------------------------------------------------------------------------------------------
# Activations

# Note [In-place activations]
# torch's ``inplace=True`` writes the result into the input and returns the input. Here the
# activation runs out of place on a clone and is then copied into the input (``copy_``): the
# clone, not the input, is what the activation's nodes save, so bumping the input's version
# does not invalidate them, and the input's new grad_fn routes its gradient through the
# activation. A leaf that requires grad raises torch's error (the engines' ``copy_`` check).


def _maybe_inplace(input: Any, inplace: bool, fn: Any) -> Any:
    """``fn(input)``, written into ``input`` when ``inplace`` (Note [In-place activations])."""
    if not inplace:
        return fn(input)
    return input.copy_(fn(input.clone()))


def relu(input: Any, inplace: bool = False) -> Any:
    E = engine_of(input)
    return _maybe_inplace(input, inplace, E.op("relu"))


def relu_(input: Any) -> Any:
    return relu(input, inplace=True)


def tanh(input: Any) -> Any:
    E = engine_of(input)
    return E.op("tanh")(input)


def sigmoid(input: Any) -> Any:
    E = engine_of(input)
    return E.op("sigmoid")(input)


def silu(input: Any, inplace: bool = False) -> Any:
    E = engine_of(input)
    return _maybe_inplace(input, inplace, E.op("silu"))


def gelu(input: Any, *, approximate: str = "none") -> Any:
    E = engine_of(input)
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return E.op("gelu")(input, approximate == "tanh")


def softplus(input: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    E = engine_of(input)
    return E.op("softplus")(input, float(beta), float(threshold))


def elu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Any:
    E = engine_of(input)
    return _maybe_inplace(input, inplace, lambda x: E.op("elu")(x, float(alpha)))


def celu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Any:
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))``, i.e. ``alpha * elu(x / alpha)``."""
    E = engine_of(input)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _maybe_inplace(input, inplace,
                          lambda x: E.op("elu")(x * (1.0 / alpha), 1.0) * float(alpha))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Any, inplace: bool = False) -> Any:
    """``scale * elu(x, alpha)`` with the self-normalising constants of Klambauer et al."""
    E = engine_of(input)
    return _maybe_inplace(input, inplace,
                          lambda x: E.op("elu")(x, _SELU_ALPHA) * _SELU_SCALE)


def leaky_relu(input: Any, negative_slope: float = 0.01, inplace: bool = False) -> Any:
    E = engine_of(input)
    return _maybe_inplace(input, inplace,
                          lambda x: E.op("leaky_relu")(x, float(negative_slope)))


def prelu(input: Any, weight: Any) -> Any:
    """``max(0, x) + weight * min(0, x)``, one learned slope per channel (dim 1) or one in all."""
    E = engine_of(input)
    n = weight.numel()
    if n != 1:
        channels = input.shape[1] if input.ndim >= 2 else (input.shape[0] if input.ndim else 1)
        if n != channels:
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {n} and channel size = {channels}.")
        if input.ndim >= 2:
            weight = weight.reshape(channels, *([1] * (input.ndim - 2)))
    pos = E.op("relu")(input)
    return pos + weight * (input - pos)


def hardtanh(input: Any, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Any:
    E = engine_of(input)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _maybe_inplace(input, inplace,
                          lambda x: E.module.clamp(x, float(min_val), float(max_val)))


def relu6(input: Any, inplace: bool = False) -> Any:
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input: Any, inplace: bool = False) -> Any:
    """``relu6(x + 3) / 6``."""
    E = engine_of(input)
    return _maybe_inplace(input, inplace,
                          lambda x: E.module.clamp(x + 3.0, 0.0, 6.0) * (1.0 / 6.0))


def hardswish(input: Any, inplace: bool = False) -> Any:
    """``x * relu6(x + 3) / 6``."""
    E = engine_of(input)
    return _maybe_inplace(input, inplace,
                          lambda x: x * E.module.clamp(x + 3.0, 0.0, 6.0) * (1.0 / 6.0))


def mish(input: Any, inplace: bool = False) -> Any:
    """``x * tanh(softplus(x))``."""
    E = engine_of(input)
    return _maybe_inplace(input, inplace,
                          lambda x: x * E.op("tanh")(E.op("softplus")(x, 1.0, 20.0)))


def softsign(input: Any) -> Any:
    """``x / (1 + |x|)``."""
    return input / (input.abs() + 1.0)


def logsigmoid(input: Any) -> Any:
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large |x|."""
    E = engine_of(input)
    return -E.op("softplus")(-input, 1.0, 20.0)


def tanhshrink(input: Any) -> Any:
    """``x - tanh(x)``."""
    E = engine_of(input)
    return input - E.op("tanh")(input)


def threshold(input: Any, threshold: float, value: float, inplace: bool = False) -> Any:
    """``x`` where ``x > threshold``, else ``value``."""
    E = engine_of(input)
    return _maybe_inplace(input, inplace, lambda x: E.module.where(
        x > threshold, x, E.module.full_like(x, float(value))))


def glu(input: Any, dim: int = -1) -> Any:
    """``a * sigmoid(b)`` where ``a``, ``b`` are the two halves of ``input`` along ``dim``."""
    E = engine_of(input)
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.ndim
    size = input.shape[d]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {size}")
    a = E.op("narrow")(input, d, 0, size // 2)
    b = E.op("narrow")(input, d, size // 2, size // 2)
    return a * E.op("sigmoid")(b)


def _softmax_dim(name: str, ndim: int, dim: int | None, stacklevel: int) -> int:
    """``dim``, or torch's deprecated implicit choice when None (0 for 0-, 1- and 3-d inputs,
    else 1), with torch's warning."""
    if dim is not None:
        return dim
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _as_dtype(input: Any, dtype: Any) -> Any:
    return input if dtype is None else input.to(dtype)


def softmax(input: Any, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Any:
    """``exp(x) / sum(exp(x))`` along ``dim`` (cast to ``dtype`` first when given)."""
    E = engine_of(input)
    dim = _softmax_dim("softmax", input.ndim, dim, _stacklevel)
    return E.op("softmax")(_as_dtype(input, dtype), dim)


def log_softmax(input: Any, dim: int | None = None, _stacklevel: int = 3,
                dtype: Any = None) -> Any:
    """``log(softmax(x))`` along ``dim``, computed stably (cast to ``dtype`` first)."""
    E = engine_of(input)
    dim = _softmax_dim("log_softmax", input.ndim, dim, _stacklevel)
    return E.op("log_softmax")(_as_dtype(input, dtype), dim)


def softmin(input: Any, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Any:
    """``softmax(-x)`` along ``dim``."""
    E = engine_of(input)
    dim = _softmax_dim("softmin", input.ndim, dim, _stacklevel)
    return E.op("softmax")(-_as_dtype(input, dtype), dim)


# ---------------------------------------------------------------------------------------------
# Losses


def mse_loss(input: Any, target: Any, reduction: str = "mean") -> Any:
    E = engine_of(input)
    _check_reduction(reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"mse_loss: input shape {tuple(input.shape)} and target shape "
                         f"{tuple(target.shape)} differ")
    if reduction == "none":
        d = input - target
        return d * d
    return E.op("mse_loss")(input, target, reduction == "mean")


def _rows(input: Any, target: Any):
    """(N, C, d1, ...) logits and (N, d1, ...) targets -> (N*d1*..., C) and (N*d1*...,)."""
    if input.ndim == 1:
        return input.reshape(1, -1), target.reshape(1), ()
    if input.ndim == 2:
        return input, target, None
    c = input.shape[1]
    perm = (0,) + tuple(range(2, input.ndim)) + (1,)
    rows = input.permute(*perm).reshape(-1, c)
    return rows, target.reshape(-1), tuple(target.shape)


def _unrows(loss: Any, shape: tuple | None) -> Any:
    return loss if shape is None else loss.reshape(*shape) if shape else loss.reshape(())


def _cast(E: Engine, t: Any, dtype: Any) -> Any:
    return t.to(dtype) if hasattr(t, "to") else E.op("cast")(t, dtype)


def _has_ignored(E: Engine, target: Any, ignore_index: int) -> bool:
    return bool((E.numpy(target) == ignore_index).any())


def nll_loss(input: Any, target: Any, weight: Any = None, ignore_index: int = -100,
             reduction: str = "mean") -> Any:
    """Negative log-likelihood of class indices, given log-probabilities (N, C[, d...])."""
    E = engine_of(input)
    _check_reduction(reduction)
    logp, t, shape = _rows(input, target)
    if reduction != "none":
        return E.op("nll_loss")(logp, t, weight, int(ignore_index), reduction == "mean")
    return _unrows(_nll_none(E, logp, t, weight, ignore_index), shape)


def _nll_none(E: Engine, logp: Any, t: Any, weight: Any, ignore_index: int) -> Any:
    keep = t != ignore_index
    safe = E.op("where")(keep, t, t * 0)
    picked = E.op("gather")(logp, 1, safe.unsqueeze(1)).squeeze(1)
    w = _cast(E, keep, logp.dtype) if weight is None else (
        E.op("index_select")(weight, 0, safe) * _cast(E, keep, logp.dtype))
    return -(picked * w)


def cross_entropy(input: Any, target: Any, weight: Any = None,
                  ignore_index: int = -100, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Any:
    """Cross entropy of logits (N, C[, d...]) against int64 class indices (N[, d...]).

    The common case (no weight, no ignored target, no smoothing, mean or sum) is one fused
    formula; the rest is composed of log_softmax and nll_loss, as PyTorch defines it.
    """
    E = engine_of(input)
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be in [0, 1], got {label_smoothing}")
    if "int" not in str(target.dtype):
        raise TypeError("cross_entropy: target must hold int64 class indices "
                        f"(got dtype {target.dtype}); class probabilities are not supported")
    logits, t, shape = _rows(input, target)
    if (weight is None and label_smoothing == 0.0 and reduction != "none"
            and not _has_ignored(E, t, ignore_index)):
        return E.op("cross_entropy")(logits, t, reduction == "mean")
    logp = log_softmax(logits, 1)
    if reduction == "none":
        nll = _unrows(_nll_none(E, logp, t, weight, ignore_index), shape)
    else:
        nll = E.op("nll_loss")(logp, t, weight, int(ignore_index), reduction == "mean")
    if label_smoothing == 0.0:
        return nll
    keep = _cast(E, t != ignore_index, logp.dtype)
    smooth = -(logp.sum(1) if weight is None else (logp * weight).sum(1)) * keep
    if reduction == "sum":
        smooth = smooth.sum()
    elif reduction == "mean":
        if weight is None:
            smooth = smooth.sum() / keep.sum()
        else:
            safe = E.op("where")(t != ignore_index, t, t * 0)
            smooth = smooth.sum() / (E.op("index_select")(weight, 0, safe) * keep).sum()
    else:
        smooth = _unrows(smooth, shape)
    n_classes = logits.shape[1]
    return nll * (1.0 - label_smoothing) + smooth * (label_smoothing / n_classes)


def binary_cross_entropy_with_logits(input: Any, target: Any, weight: Any = None,
                                     reduction: str = "mean", pos_weight: Any = None) -> Any:
    E = engine_of(input)
    _check_reduction(reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"binary_cross_entropy_with_logits: input shape {tuple(input.shape)} "
                         f"and target shape {tuple(target.shape)} differ")
    if reduction == "none":
        return E.op("binary_cross_entropy_with_logits_unreduced")(input, target, weight,
                                                                   pos_weight)
    return E.op("binary_cross_entropy_with_logits")(input, target, weight, pos_weight,
                                                    reduction == "mean")


def one_hot(tensor: Any, num_classes: int = -1) -> Any:
    """int64 one-hot encoding, last dim of size ``num_classes`` (max + 1 when -1)."""
    E = engine_of(tensor)
    idx = E.numpy(tensor).astype(np.int64)
    n = int(idx.max()) + 1 if num_classes < 0 else num_classes
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ValueError(f"one_hot: class values must be in [0, {n})")
    out = np.eye(n, dtype=np.int64)[idx]
    return E.module.tensor(out, dtype=E.module.int64)


__all__ = [
    "adaptive_avg_pool2d",
    "alpha_dropout",
    "avg_pool2d",
    "batch_norm",
    "binary_cross_entropy_with_logits",
    "celu",
    "conv1d",
    "conv2d",
    "cross_entropy",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "elu",
    "embedding",
    "gelu",
    "glu",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "layer_norm",
    "leaky_relu",
    "linear",
    "log_softmax",
    "logsigmoid",
    "max_pool2d",
    "mish",
    "mse_loss",
    "nll_loss",
    "one_hot",
    "prelu",
    "relu",
    "relu6",
    "relu_",
    "selu",
    "sigmoid",
    "silu",
    "softmax",
    "softmin",
    "softplus",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
]
