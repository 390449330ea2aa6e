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


def dropout(input: Any, p: float = 0.5, training: bool = True) -> Any:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``; the
    mask comes from the engine's generator (``manual_seed``). Identity when not training."""
    E = engine_of(input)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability must be in [0, 1], got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    mask = E.bernoulli_mask(tuple(input.shape), 1.0 - p, input.dtype)
    return input * mask * (1.0 / (1.0 - p))


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


def relu(input: Any) -> Any:
    E = engine_of(input)
    return E.op("relu")(input)


def tanh(input: Any) -> Any:
    E = engine_of(input)
    return E.op("tanh")(input)


def sigmoid(input: Any) -> Any:
    E = engine_of(input)
    return E.op("sigmoid")(input)


def silu(input: Any) -> Any:
    E = engine_of(input)
    return E.op("silu")(input)


def gelu(input: Any, approximate: str = "none") -> Any:
    E = engine_of(input)
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return E.op("gelu")(input, approximate == "tanh")


def softplus(input: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    E = engine_of(input)
    return E.op("softplus")(input, float(beta), float(threshold))


def elu(input: Any, alpha: float = 1.0) -> Any:
    E = engine_of(input)
    return E.op("elu")(input, float(alpha))


def leaky_relu(input: Any, negative_slope: float = 0.01) -> Any:
    E = engine_of(input)
    return E.op("leaky_relu")(input, float(negative_slope))


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
    "avg_pool2d",
    "batch_norm",
    "binary_cross_entropy_with_logits",
    "conv1d",
    "conv2d",
    "cross_entropy",
    "dropout",
    "elu",
    "embedding",
    "gelu",
    "layer_norm",
    "leaky_relu",
    "linear",
    "log_softmax",
    "max_pool2d",
    "mse_loss",
    "nll_loss",
    "one_hot",
    "relu",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
    "tanh",
]
