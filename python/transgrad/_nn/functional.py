"""nn.functional, engine-neutral: every function finds its engine from its tensor input
(``backend_of``), as the optimizers do, so ``transgrad.nn.functional`` and
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

import itertools
import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from transgrad._api import dtype_checks
from transgrad._api.extra_functions import check_adaptive_rank
from transgrad._backend import Backend, backend_of
from transgrad._errors import ArgumentError

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _legacy_reduction(size_average: bool | None, reduce: bool | None) -> str:
    """torch's deprecated ``size_average`` / ``reduce`` pair as a ``reduction`` string (both
    default to True), with torch's warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "none" if not reduce else ("mean" if size_average else "sum")
    warnings.warn("size_average and reduce args will be deprecated, please use "
                  f"reduction='{reduction}' instead.", UserWarning, stacklevel=3)
    return reduction


def _reduction_of(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return _legacy_reduction(size_average, reduce)
    _check_reduction(reduction)
    return reduction


def _warn_size(input: Any, target: Any) -> None:
    """torch broadcasts a target of another shape, with this warning."""
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"Using a target size ({_size(target)}) that is different to the input "
                      f"size ({_size(input)}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=3)


def _size(t: Any) -> str:
    return f"torch.Size({list(t.shape)})"


# torch's at::Reduction codes, the ``reduction`` of formulas that take one
_REDUCTION_CODES = {"none": 0, "mean": 1, "sum": 2}


def _reduce(E: Backend, loss: Any, reduction: str) -> Any:
    _check_reduction(reduction)
    if reduction == "none":
        return loss
    return loss.mean() if reduction == "mean" else loss.sum()


# ---------------------------------------------------------------------------------------------
# Layers


def linear(input: Any, weight: Any, bias: Any | None = None) -> Any:
    """``input @ weight.T + bias`` (weight is (out_features, in_features)), recorded as torch's:
    ``addmm(bias, rows, weight.t())`` (``mm`` without a bias) over the input's rows, viewed
    back to its batch dims (Note [addmm is one node] in formulas/blas.py)."""
    E = backend_of(input)
    dtype_checks.check_linear(input, weight, bias)
    if (weight.ndim != 2 or input.ndim < 1 or input.shape[-1] != weight.shape[1]
            or (bias is not None and bias.ndim != 1)):
        return E.op("linear")(input, weight, bias)  # other shapes, and torch's shape errors
    rows = input if input.ndim == 2 else E.op("reshape")(input, (-1, weight.shape[1]))
    wt = E.op("t")(weight)
    out = E.op("matmul_nd")(rows, wt) if bias is None else E.op("addmm")(bias, rows, wt)
    return out if input.ndim == 2 else E.op("reshape")(out, (*input.shape[:-1], weight.shape[0]))


def bilinear(input1: Any, input2: Any, weight: Any, bias: Any | None = None) -> Any:
    """``y[..., k] = input1 @ weight[k] @ input2 + bias[k]`` for weight (out, in1, in2): one
    bilinear form per output feature, the batch dims shared (torch's ``_trilinear``), as a
    matmul of input1 with the weight's (in1, out * in2) view, then a product with input2 summed
    over in2."""
    from transgrad._api import functions as fn

    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and "
                           f"{input2.ndim}")
    for d in range(input1.ndim - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: got "
                               f"{input1.shape[d]} and {input2.shape[d]}")
    out, n1, n2 = weight.shape
    for which, x, n in (("input1", input1, n1), ("input2", input2, n2)):
        if x.shape[-1] != n:
            raise RuntimeError(f"bilinear(): {which} size does not match weight size: got "
                               f"{x.shape[-1]} but expected {n}")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[-1] if bias.ndim else 0} but expected {out}")
    batch = tuple(input1.shape[:-1])
    w = fn.reshape(fn.permute(weight, (1, 0, 2)), (n1, out * n2))
    mixed = fn.reshape(fn.matmul(fn.reshape(input1, (-1, n1)), w), (-1, out, n2))
    y = fn.sum(mixed * fn.unsqueeze(fn.reshape(input2, (-1, n2)), 1), -1)
    if bias is not None:
        y = y + bias
    return fn.reshape(y, batch + (out,))


def embedding(input: Any, weight: Any, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Any:
    """Rows of ``weight`` picked by the int64 ``input``: shape ``input.shape + (dim,)``.

    ``padding_idx``: that row gets no gradient. ``max_norm``: the picked rows of ``weight``
    whose ``norm_type``-norm exceeds it are first rescaled in place to that norm, as torch.
    """
    E = backend_of(input)
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: scale_grad_by_freq and sparse gradients are not "
                                  "supported")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    flat = input.reshape(-1)
    ids = E.numpy(flat)
    if ids.size and (ids.min() < 0 or ids.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")  # torch's words (its index_select's)
    if max_norm is not None:
        _renorm_rows_(E, weight, ids, float(max_norm), float(norm_type))
    rows = E.op("index_select")(weight, 0, flat)
    if padding_idx is not None:
        keep = (flat != padding_idx).unsqueeze(1)
        rows = E.module.where(keep, rows, rows.detach())
    return rows.reshape(*tuple(input.shape), weight.shape[1])


def _renorm_rows_(E: Backend, weight: Any, idx: np.ndarray, max_norm: float,
                  norm_type: float) -> None:
    """torch's embedding_renorm_: rows ``idx`` of ``weight`` with a norm above ``max_norm``
    scaled (in place, no gradient) by ``max_norm / (norm + 1e-7)``."""
    w = E.numpy(weight).copy()
    rows = np.unique(idx)
    norms = np.linalg.norm(w[rows], ord=norm_type, axis=1)
    big = norms > max_norm
    if big.any():
        w[rows[big]] *= (max_norm / (norms[big] + 1e-7))[:, None].astype(w.dtype)
        E.assign_(weight, w)


_BAG_MODES = ("sum", "mean", "max")


def embedding_bag(input: Any, weight: Any, offsets: Any = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean",
                  sparse: bool = False, per_sample_weights: Any = None,
                  include_last_offset: bool = False, padding_idx: int | None = None) -> Any:
    """The sum, mean or max of the embeddings of each bag: the rows of a 2-D ``input``, or
    the runs of a 1-D ``input`` starting at ``offsets``; entries equal to ``padding_idx`` are
    left out, an empty bag gives zeros. Sum and mean are one matmul of a (bags, entries)
    weighting with the picked rows (``per_sample_weights`` scale the entries, mode "sum")."""
    E = backend_of(input)
    if mode not in _BAG_MODES:
        raise ValueError(f"mode has to be one of sum, mean or max, got {mode}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub.")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        bags, width = input.shape
        starts = np.arange(bags, dtype=np.int64) * width
        flat = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None or offsets.ndim != 1:
            raise ValueError(f"offsets has to be a 1D Tensor but got {offsets}")
        starts = E.numpy(offsets).astype(np.int64)
        if len(starts) and starts[0] != 0:  # torch's check; the first bag was dropped before
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the "
                               "mini-batch has to start from position 0. However, got "
                               f"{int(starts[0])}")
        if len(starts) and starts[-1] > input.shape[0]:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length "
                               f"{input.shape[0]} but got offsets[-1] of {int(starts[-1])}")
        if (np.diff(starts) < 0).any():
            raise RuntimeError(f"embedding_bag: offsets must be non-decreasing, got "
                               f"{starts.tolist()}")
        if include_last_offset:
            starts = starts[:-1]
        flat = input
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.ndim}")
    n = flat.shape[0]
    ends = np.append(starts[1:], n) if len(starts) else starts
    if input.ndim == 1 and include_last_offset and offsets.shape[0]:
        ends = np.append(starts[1:], int(E.numpy(offsets)[-1]))
    idx = E.numpy(flat).astype(np.int64)
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    member = np.zeros((len(starts), n), dtype=bool)
    for b, (s0, s1) in enumerate(zip(starts, ends)):
        member[b, s0:s1] = True
    if padding_idx is not None:
        member &= (idx != padding_idx)[None, :]
    rows = embedding(flat, weight, None, max_norm, norm_type)
    if mode == "max":
        out = []
        for b in range(len(starts)):
            picked = np.nonzero(member[b])[0]
            if len(picked) == 0:
                out.append(E.module.zeros(weight.shape[1], dtype=weight.dtype))
            else:
                sel = E.op("index_select")(rows, 0, E.module.tensor(picked,
                                                                   dtype=E.module.int64))
                out.append(sel.amax(0))
        return E.module.stack(out, 0) if out else E.module.zeros(0, weight.shape[1],
                                                                 dtype=weight.dtype)
    share = member.astype(np.float64)
    if mode == "mean":
        share /= np.maximum(share.sum(1, keepdims=True), 1.0)
    mix = E.module.tensor(share, dtype=weight.dtype)
    if per_sample_weights is not None:
        mix = mix * per_sample_weights.unsqueeze(0)
    return E.op("matmul")(mix, rows)


def layer_norm(input: Any, normalized_shape: Sequence[int], weight: Any = None,
               bias: Any = None, eps: float = 1e-5) -> Any:
    E = backend_of(input)
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(normalized_shape):]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with "
                           f"shape [*, {', '.join(str(s) for s in normalized_shape)}], but got "
                           f"input of size{list(input.shape)}")
    if np.dtype(input.dtype).name in ("float16", "bfloat16"):
        # torch computes a half input's statistics in float32: in float16 the variance of
        # [60000, -60000] overflows and the output was [0, 0] where torch gives [1, -1]
        def up(t: Any) -> Any:
            return None if t is None else t.float()
        out = E.op("layer_norm")(up(input), normalized_shape, up(weight), up(bias), float(eps))
        return out.to(input.dtype)
    return E.op("layer_norm")(input, normalized_shape, weight, bias, float(eps))


def group_norm(input: Any, num_groups: int, weight: Any = None, bias: Any = None,
               eps: float = 1e-5) -> Any:
    """Normalise each group of ``C / num_groups`` channels of each sample (over the group's
    channels and all spatial positions), then scale and shift per channel: the fused
    layer_norm formula over (N, G, -1) rows."""
    E = backend_of(input)
    shape = tuple(input.shape)
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    if shape[1] % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(shape)} and "
                           f"num_groups={num_groups}")
    if input.numel() == 0:
        return _channel_affine(input * 1.0, weight, bias)
    rows = input.reshape(shape[0], num_groups, -1)
    y = E.op("layer_norm")(rows, (rows.shape[-1],), None, None, float(eps)).reshape(*shape)
    return _channel_affine(y, weight, bias)


def _channel_affine(y: Any, weight: Any, bias: Any) -> Any:
    """``y * weight + bias`` with (C,) parameters applied along dim 1."""
    if weight is None and bias is None:
        return y
    view = (y.shape[1],) + (1,) * (y.ndim - 2)
    if weight is not None:
        y = y * weight.reshape(*view)
    return y if bias is None else y + bias.reshape(*view)


def rms_norm(input: Any, normalized_shape: Sequence[int], weight: Any = None,
             eps: float | None = None) -> Any:
    """``x / sqrt(mean(x^2) + eps) * weight`` over the trailing ``normalized_shape`` dims;
    ``eps=None`` is the machine epsilon of the input's dtype, as torch."""
    E = backend_of(input)
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if not k:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if weight is not None and tuple(weight.shape) != normalized_shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{list(normalized_shape)}")
    if tuple(input.shape[input.ndim - k:]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input "
                           f"with shape [*{', '.join(str(d) for d in normalized_shape)}], "
                           f"but got input of size{list(input.shape)}")
    if eps is None:
        eps = float(np.finfo(np.dtype(str(input.dtype).split(".")[-1])).eps)
    dims = tuple(range(input.ndim - k, input.ndim))
    y = input * E.module.rsqrt((input * input).mean(dims, keepdim=True) + eps)
    return y if weight is None else y * weight


def instance_norm(input: Any, running_mean: Any = None, running_var: Any = None,
                  weight: Any = None, bias: Any = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Any:
    """Normalise each channel of each sample over its spatial positions (N, C, *); with
    running statistics given and ``use_input_stats``, update them in place with the batch
    mean of the per-instance statistics (unbiased variance), as torch."""
    E = backend_of(input)
    shape = tuple(input.shape)
    if input.ndim < 3:
        raise ArgumentError(f"instance_norm: expected an (N, C, *) input of at least 3 dims, got "
                            f"shape {shape}")
    rows = input.reshape(shape[0], shape[1], -1)
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise ValueError("Expected running_mean and running_var to be defined when "
                             "use_input_stats is false")
        view = (shape[1],) + (1,) * (input.ndim - 2)
        y = ((input - running_mean.reshape(*view))
             * E.module.rsqrt(running_var.reshape(*view) + eps))
        return _channel_affine(y, weight, bias)
    n = rows.shape[-1]
    if running_mean is not None and running_var is not None and shape[0] * n:
        x = E.numpy(rows)
        mean = x.mean(axis=(0, 2))
        var = (x.var(axis=2, ddof=1) if n > 1 else np.full(x.shape[:2], np.nan)).mean(axis=0)
        E.assign_(running_mean, E.numpy(running_mean) * (1.0 - momentum) + momentum * mean)
        E.assign_(running_var, E.numpy(running_var) * (1.0 - momentum) + momentum * var)
    if input.numel() == 0:
        return _channel_affine(input * 1.0, weight, bias)
    y = E.op("layer_norm")(rows, (n,), None, None, float(eps)).reshape(*shape)
    return _channel_affine(y, weight, bias)


def local_response_norm(input: Any, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Any:
    """``x / (k + alpha * mean of x^2 over a window of size channels)^beta``; the window
    reaches ``size // 2`` channels back and ``(size - 1) // 2`` forward, zeros beyond the
    ends counted in the mean (torch's average pooling of the padded squares)."""
    E = backend_of(input)
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} "
                         "dimensions)")
    if input.numel() == 0:
        return input * 1.0
    c = input.shape[1]
    sq = input * input
    pads = [0, 0] * (input.ndim - 2) + [size // 2, (size - 1) // 2]
    padded = E.op("pad")(sq, tuple(pads), 0.0)
    window = E.op("narrow")(padded, 1, 0, c)
    for j in range(1, size):
        window = window + E.op("narrow")(padded, 1, j, c)
    div = (window * (alpha / size) + k) ** beta
    return input / div


def _dropout_off(p: float, training: bool) -> bool:
    """Whether dropout is the identity (eval, or p = 0), after torch's check of ``p``."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return not training or p == 0.0


def dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``; the
    mask comes from the engine's generator (``manual_seed``). Identity when not training."""
    E = backend_of(input)
    if _dropout_off(p, training):
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
    E = backend_of(input)
    off = _dropout_off(p, training)
    if input.ndim not in (batched_ndim - 1, batched_ndim):
        raise RuntimeError(f"{name}: Expected {batched_ndim - 1}D or {batched_ndim}D input, "
                           f"but received a {input.ndim}D input. Note that {name} exists to "
                           "provide channel-wise dropout on inputs with "
                           f"{batched_ndim - 2} spatial dimensions, a channel dimension, and "
                           "an optional batch dimension (i.e. "
                           f"{batched_ndim - 1}D or {batched_ndim}D inputs).")
    if off:
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
    E = backend_of(input)
    if _dropout_off(p, training):
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


def _api(E: Backend, name: str) -> Any:
    fn = getattr(E.module, name, None)
    if fn is None:
        raise AttributeError(f"{E.name} has no function {name!r} (see "
                             f"_api/extra_functions.py)")
    return fn


# Note [Integral convolutions and pools]
# torch convolves and pools integer tensors in their own dtype (CPU only; an average truncates
# toward zero) and unfolds bool ones. The kernels here are floating, so an integral input runs
# in float64 and the result is cast back: exact (float64 holds every sum and product below
# 2**53; a true quotient truncated is the integer quotient) where torch does not overflow. No
# gradient is lost: an integral tensor never requires grad.


def _f64(t: Any) -> Any:
    return None if t is None else t.double()


def _integral(out: Any, dtype: Any) -> Any:
    """A float64 result of an integral input, cast back (max pools: values and indices)."""
    if isinstance(out, tuple):
        return (out[0].to(dtype),) + tuple(out[1:])
    return out.to(dtype)


def conv1d(input: Any, weight: Any, bias: Any = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Any:
    """1-D convolution (cross-correlation, as torch) of (N, C_in, L) or (C_in, L) by weight
    (C_out, C_in / groups, k); ``padding`` an int, "valid" or "same"."""
    dtype_checks.check_conv(input, weight, bias)
    if input.dtype.kind in "iu":  # Note [Integral convolutions and pools]
        return _integral(conv1d(_f64(input), _f64(weight), _f64(bias), stride, padding,
                                dilation, groups), input.dtype)
    E = backend_of(input)
    return _api(E, "conv1d")(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Any:
    """2-D convolution of (N, C_in, H, W) or (C_in, H, W) by weight (C_out, C_in / groups,
    kh, kw); window arguments an int or a pair, ``padding`` also "valid" or "same"."""
    dtype_checks.check_conv(input, weight, bias)
    if input.dtype.kind in "iu":  # Note [Integral convolutions and pools]
        return _integral(conv2d(_f64(input), _f64(weight), _f64(bias), stride, padding,
                                dilation, groups), input.dtype)
    E = backend_of(input)
    return _api(E, "conv2d")(input, weight, bias, stride, padding, dilation, groups)


def _triple(v: Any) -> tuple:
    return (int(v),) * 3 if isinstance(v, int) else tuple(int(i) for i in v)


def conv3d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Any:
    """3-D convolution of (N, C_in, D, H, W) or (C_in, D, H, W) by weight
    (C_out, C_in / groups, kd, kh, kw) (Note [conv3d as a sum of conv2d])."""
    dtype_checks.check_conv(input, weight, bias)
    if input.dtype.kind in "iu":  # Note [Integral convolutions and pools]
        return _integral(conv3d(_f64(input), _f64(weight), _f64(bias), stride, padding,
                                dilation, groups), input.dtype)
    if input.ndim not in (4, 5) or weight.ndim != 5:
        raise RuntimeError(f"Expected 4D (unbatched) or 5D (batched) input to conv3d, but got "
                           f"input of size: {list(input.shape)}")
    if input.ndim == 4:
        return conv3d(input.unsqueeze(0), weight, bias, stride, padding, dilation,
                      groups).squeeze(0)
    s, d, k = _triple(stride), _triple(dilation), tuple(weight.shape[2:])
    x = input
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ArgumentError(f"Invalid padding string '{padding}'")
        if padding == "same" and s != (1, 1, 1):
            raise ArgumentError("padding='same' is not supported for strided convolutions")
        pads: tuple = ()
        for j in reversed(range(3)):
            total = d[j] * (k[j] - 1) if padding == "same" else 0
            pads += (total // 2, total - total // 2)
        x = pad(x, pads)
        p = (0, 0, 0)
    else:
        p = _triple(padding)
        if p[0]:
            x = pad(x, (0, 0, 0, 0, p[0], p[0]))
    n, c, depth = x.shape[0], x.shape[1], x.shape[2]
    out_depth = (depth - d[0] * (k[0] - 1) - 1) // s[0] + 1
    if out_depth < 1:
        raise RuntimeError(f"conv3d: input {tuple(input.shape)} is too small for weight "
                           f"{tuple(weight.shape)}")
    out = None
    for j in range(k[0]):
        start = j * d[0]
        planes = x[:, :, start:start + (out_depth - 1) * s[0] + 1:s[0]]
        planes = planes.permute(0, 2, 1, 3, 4).reshape(n * out_depth, c, x.shape[3],
                                                       x.shape[4])
        y = conv2d(planes, weight[:, :, j], None, s[1:], p[1:], d[1:], groups)
        out = y if out is None else out + y
    assert out is not None  # k[0] >= 1: conv3d's weight has a depth
    o, ho, wo = out.shape[1], out.shape[2], out.shape[3]
    out = out.reshape(n, out_depth, o, ho, wo).permute(0, 2, 1, 3, 4)
    return out if bias is None else out + bias.reshape(o, 1, 1, 1)


# Note [conv3d as a sum of conv2d]
# Output plane t of a 3-D convolution is the sum over the kernel's depth taps j of a 2-D
# convolution of input plane t * stride + j * dilation with the filters' slice j. Taking, for
# each tap, the strided run of input planes it meets and folding them into the batch makes
# that kd 2-D convolutions (im2col + one gemm each), whose sum is the result; depth padding is
# explicit zero planes. Every piece is a differentiable op, so gradients of all orders follow.


def conv_transpose2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Any:
    """The adjoint of conv2d (a "deconvolution") of (N, C_in, H, W) or (C_in, H, W) by weight
    (C_in, C_out / groups, kh, kw) (Note [conv_transpose as matmul + col2im])."""
    dtype_checks.check_conv(input, weight, bias)
    if input.dtype.kind in "iu":  # Note [Integral convolutions and pools]
        y = conv_transpose2d(_f64(input), _f64(weight), _f64(bias), stride, padding,
                             output_padding, groups, dilation)
        return _integral(y, input.dtype)
    E = backend_of(input)
    if input.ndim not in (3, 4) or weight.ndim != 4:
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to "
                           f"conv_transpose2d, but got input of size: {list(input.shape)}")
    if input.ndim == 3:
        return conv_transpose2d(input.unsqueeze(0), weight, bias, stride, padding,
                                output_padding, groups, dilation).squeeze(0)
    s, p, op, d = _pair(stride), _pair(padding), _pair(output_padding), _pair(dilation)
    n, cin, h, w = tuple(input.shape)
    g = int(groups)
    if weight.shape[0] != cin or cin % g:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"input{list(input.shape)} to have {weight.shape[0]} channels, but "
                           f"got {cin} channels instead")
    if any(o >= max(si, di) for o, si, di in zip(op, s, d)):
        raise RuntimeError("output padding must be smaller than either stride or dilation, but "
                           f"got output_padding_height: {op[0]} output_padding_width: {op[1]} "
                           f"stride_height: {s[0]} stride_width: {s[1]} dilation_height: "
                           f"{d[0]} dilation_width: {d[1]}")
    k = tuple(weight.shape[2:])
    cout = weight.shape[1] * g
    out_size = tuple((i - 1) * si - 2 * pi + di * (ki - 1) + oi + 1
                     for i, si, pi, di, ki, oi in zip((h, w), s, p, d, k, op))
    rows = input.reshape(n, g, cin // g, h * w)
    taps = weight.reshape(g, cin // g, -1).transpose(1, 2)  # (g, C_out/g * kh * kw, C_in/g)
    cols = E.op("matmul")(taps, rows).reshape(n, cout * k[0] * k[1], h * w)
    if all(o < si for o, si in zip(op, s)):
        out = E.op("col2im")(cols, out_size, k, s, p, d)
    else:
        out = _uncropped_col2im(cols, (h, w), out_size, k, s, p, d)
    return out if bias is None else out + bias.reshape(cout, 1, 1)


def _uncropped_col2im(cols: Any, size: tuple, out_size: tuple, k: tuple, s: tuple, p: tuple,
                      d: tuple) -> Any:
    """col2im for an output_padding of at least the stride (Note [output_padding past the
    stride])."""
    E = backend_of(cols)
    full = tuple((i - 1) * si + di * (ki - 1) + 1 for i, si, di, ki in zip(size, s, d, k))
    out = E.op("col2im")(cols, full, k, s, (0, 0), d)
    out = out[:, :, p[0]:p[0] + out_size[0], p[1]:p[1] + out_size[1]]
    return pad(out, (0, out_size[1] - out.shape[-1], 0, out_size[0] - out.shape[-2]))


# Note [output_padding past the stride]
# col2im infers its block count from the output size, which an output_padding of stride or
# more (torch allows up to max(stride, dilation) - 1) pushes past the input's size. Such an
# output is the uncropped image (padding 0, exactly the input's blocks) with the padding cropped
# off the start and the rows past its end zeros: slices and a pad, differentiable to any order.


# Note [conv_transpose as matmul + col2im]
# conv2d is col2im's adjoint im2col followed by a matmul with the filters; its transpose is
# therefore the filters' transposed matmul followed by col2im: each input pixel scatters
# C_out * kh * kw contributions, and col2im sums them into the (larger) output image, whose
# size is (in - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1.


def conv_transpose1d(input: Any, weight: Any, bias: Any = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Any:
    """conv_transpose2d over a height of 1: (N, C_in, L) or (C_in, L) by weight
    (C_in, C_out / groups, k)."""
    dtype_checks.check_conv(input, weight, bias)
    if input.dtype.kind in "iu":  # Note [Integral convolutions and pools]
        y = conv_transpose1d(_f64(input), _f64(weight), _f64(bias), stride, padding,
                             output_padding, groups, dilation)
        return _integral(y, input.dtype)
    if input.ndim not in (2, 3) or weight.ndim != 3:
        raise RuntimeError(f"Expected 2D (unbatched) or 3D (batched) input to "
                           f"conv_transpose1d, but got input of size: {list(input.shape)}")
    out = conv_transpose2d(input.unsqueeze(-2), weight.unsqueeze(2), bias, (1, _one(stride)),
                           (0, _one(padding)), (0, _one(output_padding)), groups,
                           (1, _one(dilation)))
    return out.squeeze(-2)


def conv_transpose3d(input: Any, weight: Any, bias: Any = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Any:
    """The adjoint of conv3d of (N, C_in, D, H, W) or (C_in, D, H, W) by weight
    (C_in, C_out / groups, kd, kh, kw) (Note [conv_transpose3d as a sum of conv_transpose2d])."""
    dtype_checks.check_conv(input, weight, bias)
    if input.dtype.kind in "iu":  # Note [Integral convolutions and pools]
        y = conv_transpose3d(_f64(input), _f64(weight), _f64(bias), stride, padding,
                             output_padding, groups, dilation)
        return _integral(y, input.dtype)
    E = backend_of(input)
    if input.ndim not in (4, 5) or weight.ndim != 5:
        raise RuntimeError(f"Expected 4D (unbatched) or 5D (batched) input to "
                           f"conv_transpose3d, but got input of size: {list(input.shape)}")
    if input.ndim == 4:
        return conv_transpose3d(input.unsqueeze(0), weight, bias, stride, padding,
                                output_padding, groups, dilation).squeeze(0)
    s, p, op, d = (_triple(stride), _triple(padding), _triple(output_padding),
                   _triple(dilation))
    n, cin, depth, h, w = tuple(input.shape)
    if any(o >= max(si, di) for o, si, di in zip(op, s, d)):
        raise RuntimeError("output padding must be smaller than either stride or dilation, but "
                           f"got output_padding: {list(op)} stride: {list(s)} dilation: "
                           f"{list(d)}")
    k = tuple(weight.shape[2:])
    out_depth = (depth - 1) * s[0] - 2 * p[0] + d[0] * (k[0] - 1) + op[0] + 1
    planes = input.permute(0, 2, 1, 3, 4).reshape(n * depth, cin, h, w)
    taps = []
    for j in range(k[0]):
        y = conv_transpose2d(planes, weight[:, :, j], None, s[1:], p[1:], op[1:], groups,
                             d[1:])
        taps.append(y.reshape(n, depth, *y.shape[1:]))
    cout, ho, wo = taps[0].shape[2], taps[0].shape[3], taps[0].shape[4]
    out_planes = []
    for z in range(p[0], p[0] + out_depth):
        total = None
        for j in range(k[0]):
            t, r = divmod(z - j * d[0], s[0])
            if r == 0 and 0 <= t < depth:
                total = taps[j][:, t] if total is None else total + taps[j][:, t]
        out_planes.append(E.module.zeros(n, cout, ho, wo, dtype=input.dtype) if total is None
                          else total)
    out = E.module.stack(out_planes, 2)
    return out if bias is None else out + bias.reshape(cout, 1, 1, 1)


# Note [conv_transpose3d as a sum of conv_transpose2d]
# Input plane t of a transposed 3-D convolution, through the filters' depth slice j, lands on
# output plane t * stride + j * dilation (before the padding is cropped) as a transposed 2-D
# convolution of that plane. So each tap runs one conv_transpose2d over all input planes
# (folded into the batch), and each output plane sums the taps' planes that land on it (none:
# zeros, possible where output_padding or a large stride leaves a gap). Every piece is
# differentiable, so gradients of all orders follow.


def max_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """Max over windows (``stride`` defaults to ``kernel_size``); with ``return_indices``,
    also the flat index of each maximum in its input plane, as torch. ``ceil_mode`` adds the
    last partial windows (Note [ceil_mode as right padding])."""
    if input.dtype.kind in "iu":  # Note [Integral convolutions and pools]
        return _integral(max_pool2d(_f64(input), kernel_size, stride, padding, dilation, ceil_mode,
                               return_indices), input.dtype)
    E = backend_of(input)
    k = _pair(kernel_size)
    s = k if stride is None or stride == () else _pair(stride)
    p, d = _pair(padding), _pair(dilation)
    _check_pool_padding(k, p, d)
    extra = (_ceil_extra(input.shape[-2], k[0], s[0], p[0], d[0]),
             _ceil_extra(input.shape[-1], k[1], s[1], p[1], d[1])) if ceil_mode else (0, 0)
    if extra == (0, 0):
        return _api(E, "max_pool2d")(input, k, s, p, d, ceil_mode=False,
                                     return_indices=return_indices)
    x = pad(input, (0, extra[1], 0, extra[0]), value=-math.inf)
    values, indices = _api(E, "max_pool2d")(x, k, s, p, d, ceil_mode=False,
                                            return_indices=True)
    if not return_indices:
        return values
    flat = E.numpy(indices)
    wp, w = x.shape[-1], input.shape[-1]
    fixed = (flat // wp) * w + flat % wp  # from the padded plane back to the input's
    return values, E.module.tensor(fixed, dtype=E.module.int64)


# Note [ceil_mode as right padding]
# With ceil_mode torch counts one more window wherever the last one would start inside the
# input (or its left padding): out = ceil((L + 2p - d(k-1) - 1) / s) + 1, less one if that
# window would start at or after L + p. Padding the input on the right by the windows' overhang
# (with -inf, which never wins a max) and pooling as usual gives exactly those windows; the
# indices are then mapped from the padded plane back to the input's.


def _check_pool_padding(k: Sequence[int], p: Sequence[int], d: Sequence[int]) -> None:
    """torch's checks of a pool's padding: non-negative, at most half the effective kernel."""
    if min(p) < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(p)}")
    for ki, pi, di in zip(k, p, d):
        if pi > ((ki - 1) * di + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pi}, kernel_size={ki} and dilation={di}")


def _ceil_extra(size: int, k: int, s: int, p: int, d: int) -> int:
    """How far the ceil_mode windows reach beyond the padded input (Note [ceil_mode as right
    padding])."""
    span = size + 2 * p - d * (k - 1) - 1
    out = -(-span // s) + 1
    if (out - 1) * s >= size + p:
        out -= 1
    return max(0, (out - 1) * s + d * (k - 1) + 1 - (size + 2 * p))


def max_pool1d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """Max over windows of (N, C, L) or (C, L): max_pool2d over a height of 1."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"max_pool1d() Expected 2D or 3D input tensor, but got "
                           f"{list(input.shape)}")
    k = _one(kernel_size)
    s = k if stride is None or stride == () else _one(stride)
    if not return_indices:  # torch's max_pool1d has its own checks (with indices: max_pool2d's)
        if _one(padding) < 0:
            raise RuntimeError(f"max_pool1d() padding must be non-negative, but got "
                               f"{_one(padding)}")
        if _one(padding) > k // 2:
            raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, "
                               f"but got padding={_one(padding)} and kernel_size={k}")
    out = max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _one(padding)),
                     (1, _one(dilation)), ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def max_pool3d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """Max over (kd, kh, kw) windows of (N, C, D, H, W) or (C, D, H, W): for each depth tap,
    max_pool2d of the depth planes it meets (folded into the batch), then the elementwise
    maximum over the taps; indices (flat into D*H*W, as torch) from the winning tap."""
    if input.dtype.kind in "iu":  # Note [Integral convolutions and pools]
        return _integral(max_pool3d(_f64(input), kernel_size, stride, padding, dilation, ceil_mode,
                               return_indices), input.dtype)
    E = backend_of(input)
    if input.ndim not in (4, 5):
        raise RuntimeError(f"non-empty 4D or 5D (batch mode) tensor expected for input, but "
                           f"got: {list(input.shape)}")
    if input.ndim == 4:
        out = max_pool3d(input.unsqueeze(0), kernel_size, stride, padding, dilation, ceil_mode,
                         return_indices)
        return (out[0].squeeze(0), out[1].squeeze(0)) if return_indices else out.squeeze(0)
    k = _triple(kernel_size)
    s = k if stride is None or stride == () else _triple(stride)
    p, d = _triple(padding), _triple(dilation)
    _check_pool_padding(k, p, d)
    n, c, depth, h, w = tuple(input.shape)
    extra = _ceil_extra(depth, k[0], s[0], p[0], d[0]) if ceil_mode else 0
    x = pad(input, (0, 0, 0, 0, p[0], p[0] + extra), value=-math.inf)
    out_depth = (x.shape[2] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    values, indices = [], []
    for j in range(k[0]):
        start = j * d[0]
        planes = x[:, :, start:start + (out_depth - 1) * s[0] + 1:s[0]]
        planes = planes.permute(0, 2, 1, 3, 4).reshape(n * out_depth, c, h, w)
        v, i = max_pool2d(planes, k[1:], s[1:], p[1:], d[1:], ceil_mode, True)
        shape = (n, out_depth, c) + tuple(v.shape[2:])
        values.append(v.reshape(*shape).permute(0, 2, 1, 3, 4))
        plane = np.arange(out_depth).reshape(1, -1, 1, 1, 1) * s[0] + start - p[0]
        indices.append((E.numpy(i).reshape(shape) + plane * h * w).transpose(0, 2, 1, 3, 4))
    best = values[0]
    for v in values[1:]:
        best = E.module.maximum(best, v)
    if not return_indices:
        return best
    taps = np.stack([E.numpy(v) for v in values])
    which = np.argmax(taps, axis=0)  # the first tap holding the max, as torch's scan order
    chosen = np.take_along_axis(np.stack(indices), which[None], axis=0)[0]
    return best, E.module.tensor(chosen.astype(np.int64), dtype=E.module.int64)


def _adaptive_windows(size: int, out: int) -> list:
    """torch's adaptive windows: [floor(i size / out), ceil((i + 1) size / out))."""
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def adaptive_max_pool2d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    """Max over the windows that split H and W into ``output_size`` (None keeps a dim): max
    is separable, so rows are reduced per output row, then columns per output column; the
    indices (flat into H*W) come from the input's values."""
    E = backend_of(input)
    check_adaptive_rank(input, output_size, 2)
    if input.ndim not in (3, 4):
        raise ArgumentError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
                            f"{list(input.shape)}")
    h, w = input.shape[-2], input.shape[-1]
    oh, ow = _adaptive_sizes(input, output_size, 2, "adaptive_max_pool2d")
    if min(oh, ow) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(oh, ow)}: "
                           f"{list(input.shape[:-2]) + [oh, ow]}")
    rows_w = _adaptive_windows(h, oh)
    cols_w = _adaptive_windows(w, ow)
    rows = E.module.stack([input[..., a:b, :].amax(-2) for a, b in rows_w], -2)
    values = E.module.stack([rows[..., a:b].amax(-1) for a, b in cols_w], -1)
    if not return_indices:
        return values
    x = E.numpy(input)
    idx = np.empty(x.shape[:-2] + (oh, ow), dtype=np.int64)
    for i, (a, b) in enumerate(rows_w):
        for j, (c0, c1) in enumerate(cols_w):
            win = x[..., a:b, c0:c1].reshape(x.shape[:-2] + (-1,))
            flat = np.argmax(win, axis=-1)
            idx[..., i, j] = (a + flat // (c1 - c0)) * w + c0 + flat % (c1 - c0)
    return values, E.module.tensor(idx, dtype=E.module.int64)


def _one_output_size(fn: str, output_size: Any) -> None:
    """torch's check of a 1-d adaptive pool's output_size (an int or one int)."""
    if not isinstance(output_size, int) and len(tuple(output_size)) != 1:
        raise RuntimeError(f"{fn}() argument 'output_size' should contain one int (got "
                           f"{len(tuple(output_size))})")


def adaptive_max_pool1d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    """adaptive_max_pool2d over a height of 1, of (N, C, L) or (C, L)."""
    _one_output_size("adaptive_max_pool1d", output_size)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"adaptive_max_pool1d(): Expected 2D or 3D tensor, but got: "
                           f"{list(input.shape)}")
    out = adaptive_max_pool2d(input.unsqueeze(-2), (1, _one(output_size)), return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Any:
    """Mean over windows of (N, C, L) or (C, L): avg_pool2d over a height of 1."""
    if input.dtype.kind in "iu":  # Note [Integral convolutions and pools]
        return _integral(avg_pool1d(_f64(input), kernel_size, stride, padding, ceil_mode,
                                     count_include_pad), input.dtype)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"avg_pool1d() Expected 2D or 3D input tensor, but got "
                           f"{list(input.shape)}")
    k = _one(kernel_size)
    s = k if stride is None or stride == () else _one(stride)
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _one(padding)), ceil_mode,
                     count_include_pad)
    return out.squeeze(-2)


def _one(v: Any) -> int:
    return int(v) if isinstance(v, int) else int(tuple(v)[0])


def avg_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Any:
    """Mean over (kh, kw) windows of (N, C, H, W) or (C, H, W); ``ceil_mode`` through the
    window sums (Note [Average pooling as window sums])."""
    if input.dtype.kind in "iu":  # Note [Integral convolutions and pools]
        return _integral(avg_pool2d(_f64(input), kernel_size, stride, padding, ceil_mode,
                                     count_include_pad, divisor_override), input.dtype)
    E = backend_of(input)
    _check_pool_padding(_ntuple(kernel_size, 2), _ntuple(padding, 2), (1, 1))
    if ceil_mode:
        return _avg_pool(input, 2, kernel_size, stride, padding, True, count_include_pad,
                         divisor_override)
    return _api(E, "avg_pool2d")(input, kernel_size, stride, padding, ceil_mode,
                                 count_include_pad, divisor_override)


def avg_pool3d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Any:
    """Mean over (kd, kh, kw) windows of (N, C, D, H, W) or (C, D, H, W) (Note [Average
    pooling as window sums])."""
    if input.dtype.kind in "iu":  # Note [Integral convolutions and pools]
        return _integral(avg_pool3d(_f64(input), kernel_size, stride, padding, ceil_mode,
                                     count_include_pad, divisor_override), input.dtype)
    return _avg_pool(input, 3, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


# Note [Average pooling as window sums]
# A window sum is separable: summing the k strided slices of one dim (tap j takes positions
# j, j + s, ...) and then doing the same along the next dim sums every window, with exact
# gradients of all orders (slices and adds). The input is first zero-padded by the padding and,
# under ceil_mode, by the last windows' overhang (Note [ceil_mode as right padding]). The sums
# are divided by a constant map of torch's divisors: per dim, the window clipped to the padded
# input (count_include_pad) or to the input itself, multiplied over the dims; or
# divisor_override everywhere.


def _avg_pool(input: Any, nd: int, kernel_size: Any, stride: Any, padding: Any,
              ceil_mode: bool, count_include_pad: bool, divisor_override: int | None) -> Any:
    """N-d average pooling of (N, C, *spatial) or (C, *spatial) (Note [Average pooling as
    window sums])."""
    E = backend_of(input)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for "
                           f"input")
    if input.ndim == nd + 1:
        return _avg_pool(input.unsqueeze(0), nd, kernel_size, stride, padding, ceil_mode,
                         count_include_pad, divisor_override).squeeze(0)
    k = _ntuple(kernel_size, nd)
    s = k if stride is None or stride == () else _ntuple(stride, nd)
    p = _ntuple(padding, nd)
    _check_pool_padding(k, p, (1,) * nd)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    sizes = tuple(input.shape[2:])
    outs: list[int] = []
    for size, ki, si, pi in zip(sizes, k, s, p):
        out = (size + 2 * pi - ki) // si + 1 + (_ceil_extra(size, ki, si, pi, 1) > 0
                                                  if ceil_mode else 0)
        if out < 1:
            raise RuntimeError(f"Given input size: {tuple(input.shape[1:])}. Calculated output "
                               f"size: {(input.shape[1],) + tuple(outs)}. Output size is too "
                               "small")
        outs.append(out)
    pads: tuple = ()
    for size, ki, si, pi, o in zip(sizes[::-1], k[::-1], s[::-1], p[::-1], outs[::-1]):
        pads += (pi, max(0, (o - 1) * si + ki - size - pi))
    x = pad(input, pads)
    for j in range(nd):
        lead = (slice(None),) * (2 + j)
        taps = [x[lead + (slice(t, t + (outs[j] - 1) * s[j] + 1, s[j]),)] for t in range(k[j])]
        x = taps[0]
        for t in taps[1:]:
            x = x + t
    if divisor_override is not None:
        return x * (1.0 / float(divisor_override))
    divisor = np.ones((), dtype=np.float64)
    for size, ki, si, pi, o in zip(sizes, k, s, p, outs):
        start = np.arange(o) * si - pi
        end = np.minimum(start + ki, size + pi)
        count = end - start if count_include_pad else (np.minimum(end, size)
                                                       - np.maximum(start, 0))
        divisor = np.multiply.outer(divisor, count.astype(np.float64))
    return x / E.module.tensor(divisor, dtype=input.dtype)


def _ntuple(v: Any, n: int) -> tuple:
    """``v`` as n ints: an int or a 1-tuple repeated (torch's pooling takes ``padding=(1,)``)."""
    if isinstance(v, int):
        return (int(v),) * n
    v = tuple(int(i) for i in v)
    return v * n if len(v) == 1 else v


def adaptive_avg_pool1d(input: Any, output_size: Any) -> Any:
    """adaptive_avg_pool2d over a height of 1, of (N, C, L) or (C, L)."""
    _one_output_size("adaptive_avg_pool1d", output_size)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d(): Expected 2D or 3D tensor, but got: "
                           f"{list(input.shape)}")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, _one(output_size))).squeeze(-2)


def adaptive_avg_pool3d(input: Any, output_size: Any) -> Any:
    """Average over the windows that split D, H and W into ``output_size`` (an int or a
    triple; None keeps that dim): separable, so the mean of each window of each dim in turn."""
    E = backend_of(input)
    check_adaptive_rank(input, output_size, 3)
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got "
                           f"{list(input.shape)}")
    out = input
    sizes = _adaptive_sizes(input, output_size, 3, "adaptive_avg_pool3d")
    for dim, size in zip(range(-3, 0), sizes):
        n = input.shape[dim]
        lead = (slice(None),) * (input.ndim + dim)
        out = E.module.stack([out[lead + (slice(a, b),)].mean(dim)
                              for a, b in _adaptive_windows(n, size)], dim)
    return out


def _adaptive_sizes(input: Any, output_size: Any, nd: int, fn: str) -> tuple:
    """``output_size`` as nd ints (None keeps the input's extent); torch's words for another
    length (avg's check, or max's internal assert)."""
    size = (output_size,) * nd if isinstance(output_size, int) else tuple(output_size)
    if len(size) != nd:
        raise ArgumentError(f"{fn}: output_size must be {nd}" if "avg" in fn else
                            f"{fn}(): internal error: output_size.size() must be {nd}")
    return tuple(input.shape[input.ndim - nd + i] if v is None else int(v)
                 for i, v in enumerate(size))


def adaptive_max_pool3d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    """Max over the windows that split D, H and W into ``output_size``: max is separable, so
    each dim is reduced per output window in turn; the indices (flat into D*H*W) come from the
    input's values."""
    E = backend_of(input)
    check_adaptive_rank(input, output_size, 3)
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: "
                           f"{list(input.shape)}")
    sizes = _adaptive_sizes(input, output_size, 3, "adaptive_max_pool3d")
    windows = [_adaptive_windows(input.shape[input.ndim - 3 + i], o) for i, o in enumerate(sizes)]
    values = input
    for dim, wins in zip(range(-3, 0), windows):
        lead = (slice(None),) * (input.ndim + dim)
        values = E.module.stack([values[lead + (slice(a, b),)].amax(dim) for a, b in wins], dim)
    if not return_indices:
        return values
    x = E.numpy(input)
    h, w = x.shape[-2], x.shape[-1]
    idx = np.empty(x.shape[:-3] + tuple(sizes), dtype=np.int64)
    for i, (d0, d1) in enumerate(windows[0]):
        for j, (h0, h1) in enumerate(windows[1]):
            for m, (w0, w1) in enumerate(windows[2]):
                win = x[..., d0:d1, h0:h1, w0:w1].reshape(x.shape[:-3] + (-1,))
                flat = np.argmax(win, axis=-1)
                dd, rest = np.divmod(flat, (h1 - h0) * (w1 - w0))
                hh, ww = np.divmod(rest, w1 - w0)
                idx[..., i, j, m] = ((d0 + dd) * h + h0 + hh) * w + w0 + ww
    return values, E.module.tensor(idx, dtype=E.module.int64)


def _unpool_size(input: Any, nd: int, kernel_size: Any, stride: Any, padding: Any,
                 output_size: Any) -> tuple:
    """torch's max_unpool output size: (in - 1) * stride - 2 * padding + kernel_size, or
    ``output_size`` (its last nd entries), checked to lie within one stride of that."""
    k = _ntuple(kernel_size, nd)
    s = k if stride is None or stride == () else _ntuple(stride, nd)
    p = _ntuple(padding, nd)
    sizes = tuple(input.shape[input.ndim - nd:])
    default = tuple((i - 1) * si + ki - 2 * pi for i, si, ki, pi in zip(sizes, s, k, p))
    if output_size is None:
        return default
    given = output_size[2:] if len(output_size) == nd + 2 else output_size
    out = tuple(int(v) for v in given)
    if len(out) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                         f"elements, but it has a length of '{len(out)}'")
    for d in range(nd):
        lo, hi = default[d] - s[d], default[d] + s[d]
        if not lo < out[d] < hi:
            raise ValueError(f'invalid output_size "{given}" (dim {d} must be between '
                             f"{lo} and {hi})")
    return out


def _max_unpool(input: Any, indices: Any, nd: int, out_size: tuple) -> Any:
    """Zeros of ``out_size`` with ``input``'s values written at the flat ``indices`` of each
    (n, c) plane: a scatter, whose gradient gathers from the same places."""
    E = backend_of(input)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Input to max_unpooling{nd}d should be a {nd + 1}d or {nd + 2}d "
                           f"Tensor, but got a tensor with {input.ndim} dimensions.")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    lead = tuple(input.shape[:input.ndim - nd])
    plane = math.prod(out_size)
    flat_idx = E.numpy(indices).reshape(lead + (-1,))
    bad = flat_idx[(flat_idx < 0) | (flat_idx >= plane)]
    if bad.size:
        raise RuntimeError(f"Found an invalid max index: {int(bad.flat[0])} (output volumes "
                           f"are of size {'x'.join(str(v) for v in out_size)})")
    values = input.reshape(*lead, -1)
    zeros = E.module.zeros(*lead, plane, dtype=input.dtype)
    out = E.module.scatter(zeros, len(lead), E.module.tensor(flat_idx, dtype=E.module.int64),
                           values)
    return out.reshape(*lead, *out_size)


def max_unpool1d(input: Any, indices: Any, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Any:
    """The partial inverse of max_pool1d: each value back at its index, zeros elsewhere."""
    return _max_unpool(input, indices, 1,
                       _unpool_size(input, 1, kernel_size, stride, padding, output_size))


def max_unpool2d(input: Any, indices: Any, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Any:
    """The partial inverse of max_pool2d: each value back at its index, zeros elsewhere."""
    return _max_unpool(input, indices, 2,
                       _unpool_size(input, 2, kernel_size, stride, padding, output_size))


def max_unpool3d(input: Any, indices: Any, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Any:
    """The partial inverse of max_pool3d: each value back at its index, zeros elsewhere."""
    return _max_unpool(input, indices, 3,
                       _unpool_size(input, 3, kernel_size, stride, padding, output_size))


def adaptive_avg_pool2d(input: Any, output_size: Any) -> Any:
    """Average over the windows that split H and W into ``output_size`` (an int or a pair;
    None keeps that dim), as torch."""
    E = backend_of(input)
    return _api(E, "adaptive_avg_pool2d")(input, output_size)


def batch_norm(input: Any, running_mean: Any, running_var: Any, weight: Any = None,
               bias: Any = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5) -> Any:
    """Normalise each channel (dim 1) of (N, C[, ...]): by the batch statistics when
    ``training`` (and then update the running stats in place, torch's momentum convention),
    else by ``running_mean`` / ``running_var``."""
    E = backend_of(input)
    if not training and (running_mean is None or running_var is None):
        raise ValueError("batch_norm: running_mean and running_var are needed when not "
                         "training")
    if training and input.ndim >= 2 and math.prod(input.shape) // input.shape[1] == 1:
        # torch's check: one value per channel has no variance (the output would be all 0)
        raise ValueError("Expected more than 1 value per channel when training, got input "
                         f"size {_size(input)}")
    return _api(E, "batch_norm")(input, running_mean, running_var, weight, bias,
                                 bool(training), float(momentum), float(eps))


# ---------------------------------------------------------------------------------------------
# Padding, resampling and rearranging images: composites of index_select, reshape and permute
# (each gradient is exact: index_select's backward scatters, reshape/permute are linear maps).

_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _source_index(mode: str, size: int, before: int, after: int) -> np.ndarray:
    """For each position of a dim padded by (before, after), the input position it copies."""
    i = np.arange(-before, size + after)
    if mode == "reflect":
        period = 2 * (size - 1)
        i = np.abs(i) % period if period else np.zeros_like(i)
        return np.where(i >= size, period - i, i)
    if mode == "replicate":
        return np.clip(i, 0, size - 1)
    return i % size  # circular


def _circular_index(size: int, before: int, after: int) -> np.ndarray:
    """_source_index's circular case with torch's negative padding: a negative side crops
    first, and the positive sides wrap around what is left (reflect and replicate instead
    index the uncropped input: -1 then 2 on [0..5] reflects to [1..5, 4, 3])."""
    lo = max(-before, 0)
    kept = size - lo - max(-after, 0)
    if kept < 0:
        raise RuntimeError("Negative padding value is resulting in an empty dimension")
    before, after = max(before, 0), max(after, 0)
    if before > kept or after > kept:
        raise RuntimeError("Padding value causes wrapping around more than once.")
    i = np.arange(-before, kept + after)
    return (i % kept if kept else i) + lo


def pad(input: Any, pad: Sequence[int], mode: str = "constant",
        value: float | None = None) -> Any:
    """``input`` padded by ``pad`` = (before, after) pairs from the last dim backwards:
    with ``value`` (constant), the mirror image without the edge (reflect), the edge
    (replicate) or the other end (circular)."""
    E = backend_of(input)
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if mode == "constant":
        return E.op("pad")(input, pad, 0.0 if value is None else float(value))
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    k = len(pad) // 2
    if not (1 <= k <= 3 and input.ndim in (k + 1, k + 2)):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    out = input
    for j in range(k):
        dim = input.ndim - 1 - j
        before, after = pad[2 * j], pad[2 * j + 1]
        size = input.shape[dim]
        if mode == "reflect" and (before >= size or after >= size):
            raise RuntimeError(f"Argument #4: Padding size should be less than the "
                               f"corresponding input dimension, but got: padding ({before}, "
                               f"{after}) at dimension {dim} of input {list(input.shape)}")
        if mode == "circular":
            index = _circular_index(size, before, after)
        else:
            if size + before + after <= 0:
                letter = "DHW"[dim - input.ndim + 3]
                raise RuntimeError(f"input ({letter}: {size}) is too small. Calculated output "
                                   f"{letter}: {size + before + after}")
            index = _source_index(mode, size, before, after)
        index = E.module.tensor(index, dtype=E.module.int64)
        out = E.op("index_select")(out, dim, index)
    return out


def pixel_shuffle(input: Any, upscale_factor: int) -> Any:
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    r = int(upscale_factor)
    *lead, c, h, w = tuple(input.shape)
    if input.ndim < 3 or c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)="
                           f"{c if input.ndim >= 3 else 0} is not divisible by {r * r}")
    n = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Any, downscale_factor: int) -> Any:
    """(*, C, H r, W r) -> (*, C r^2, H, W): the inverse of pixel_shuffle."""
    r = int(downscale_factor)
    *lead, c, h, w = tuple(input.shape)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.ndim} dimension(s)")
    for name, at, size in (("height", -2, h), ("width", -1, w)):
        if size % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                               f"downscale_factor, but input.size({at})={size} is not "
                               f"divisible by {r}")
    n = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


def unfold(input: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Any:
    """(N, C, H, W) -> (N, C kh kw, L): the patch under each window as a column (im2col)."""
    if input.dtype.kind in "iub":  # Note [Integral convolutions and pools]
        return _integral(unfold(_f64(input), kernel_size, dilation, padding, stride), input.dtype)
    E = backend_of(input)
    if input.ndim not in (3, 4):
        raise NotImplementedError("Input Error: Only 3D or 4D input Tensors are supported "
                                  f"(got {input.ndim}D)")
    x = input.unsqueeze(0) if input.ndim == 3 else input
    cols = E.op("im2col")(x, _pair(kernel_size), _pair(stride), _pair(padding),
                          _pair(dilation))
    return cols.squeeze(0) if input.ndim == 3 else cols


def fold(input: Any, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Any:
    """(N, C kh kw, L) -> (N, C, H, W): columns summed back into images (col2im), the
    adjoint of unfold."""
    E = backend_of(input)
    if input.ndim not in (2, 3):
        raise NotImplementedError("Input Error: Only unbatched (2D) or batched (3D) input "
                                  f"Tensors are supported (got {input.ndim}D)")
    x = input.unsqueeze(0) if input.ndim == 2 else input
    k = _pair(kernel_size)
    if x.shape[1] % (k[0] * k[1]):
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={x.shape[1]} and "
                           f"kernel_size={k}")
    out = E.op("col2im")(x, _pair(output_size), k, _pair(stride), _pair(padding),
                         _pair(dilation))
    return out.squeeze(0) if input.ndim == 2 else out


def _pair(v: Any) -> tuple:
    return (int(v), int(v)) if isinstance(v, int) else tuple(int(i) for i in v)


_INTERPOLATE_MODES = {"nearest": None, "linear": 3, "bilinear": 4, "trilinear": 5,
                      "bicubic": 4, "area": None, "nearest-exact": None}


def interpolate(input: Any, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Any:
    """Resize the spatial dims (all after N, C) to ``size`` or by ``scale_factor``: nearest
    (the source pixel floor(dst * in / out)) or (bi/tri)linear, one dim at a time, since both
    are separable; sources and weights follow torch's coordinate rules."""
    E = backend_of(input)
    if mode not in _INTERPOLATE_MODES:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported "
                                  f"(got {input.ndim}D) for the modes: nearest | linear | "
                                  f"bilinear | bicubic | trilinear | area | nearest-exact "
                                  f"(got {mode})")
    want = _INTERPOLATE_MODES[mode]
    if want is not None and input.ndim != want:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {want}D "
                                  "input")
    if mode in ("nearest", "nearest-exact") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if antialias and mode not in ("bilinear", "bicubic"):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    k = input.ndim - 2
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    in_sizes = tuple(input.shape[2:])
    if size is not None:
        out_sizes = (int(size),) * k if isinstance(size, int) else tuple(int(v) for v in size)
        scales: tuple = (None,) * k
    else:
        factors = ((float(scale_factor),) * k if isinstance(scale_factor, (int, float))
                   else tuple(float(f) for f in scale_factor))
        out_sizes = tuple(int(math.floor(n * f)) for n, f in zip(in_sizes, factors))
        scales = (None,) * k if recompute_scale_factor else factors
    if len(out_sizes) != k:
        raise ValueError(f"Input and output must have the same number of spatial dimensions, "
                         f"but got input with spatial dimensions of {list(in_sizes)} and "
                         f"output size of {list(out_sizes)}. Please provide input tensor in "
                         "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                         "format.")
    if any(n <= 0 for n in (*in_sizes, *out_sizes)):  # torch's check (a negative scale made
        # an empty output before)
        names = ("D", "H", "W")[3 - k:]
        def fmt(sizes: Sequence[int]) -> str:
            return ", ".join(f"{a}: {n}" for a, n in zip(names, sizes))
        raise RuntimeError("Input and output sizes should be greater than 0, but got input "
                           f"({fmt(in_sizes)}){' and' if k == 1 else ''} output "
                           f"({fmt(out_sizes)})")
    if mode == "area":
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
        pool = (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[k - 1]
        return pool(input, out_sizes)
    out = input
    for j in range(k):
        dim = 2 + j
        n_in, n_out, sc = in_sizes[j], out_sizes[j], scales[j]
        if mode == "bicubic" or antialias:
            weights = _resample_weights(mode, n_in, n_out, bool(align_corners), sc, antialias)
            m = E.module.tensor(weights, dtype=input.dtype)
            out = E.module.matmul(m, out) if dim == 2 else E.module.matmul(out, m.transpose(0, 1))
            continue
        if mode in ("nearest", "nearest-exact"):
            # nearest-exact: the source pixel under the output pixel's centre
            ratio = n_in / n_out if sc is None else 1.0 / sc
            at = np.arange(n_out) + (0.5 if mode == "nearest-exact" else 0.0)
            src = np.minimum(np.floor(at * ratio).astype(np.int64), n_in - 1)
            out = E.op("index_select")(out, dim, E.module.tensor(src, dtype=E.module.int64))
            continue
        if align_corners:
            ratio = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
            pos = np.arange(n_out) * ratio
        else:
            ratio = n_in / n_out if sc is None else 1.0 / sc
            pos = np.maximum((np.arange(n_out) + 0.5) * ratio - 0.5, 0.0)
        i0 = np.minimum(np.floor(pos).astype(np.int64), n_in - 1)
        i1 = np.minimum(i0 + 1, n_in - 1)
        lam = (pos - i0).reshape((n_out,) + (1,) * (input.ndim - 1 - dim))
        a = E.op("index_select")(out, dim, E.module.tensor(i0, dtype=E.module.int64))
        b = E.op("index_select")(out, dim, E.module.tensor(i1, dtype=E.module.int64))
        w = E.module.tensor(lam, dtype=input.dtype)
        out = a + (b - a) * w
    return out


# Note [Resampling as a weight matrix]
# Bicubic and antialiased resampling of one dim are linear maps with a few taps per output:
# an (out, in) matrix W, applied as W @ x (height) or x @ W^T (width), whose gradient is the
# transposed map. Bicubic (Keys' cubic convolution, a = -0.75) takes the 4 inputs around each
# source position, clamped to the edge; antialiased resampling (a triangle for bilinear, a
# = -0.5 cubic for bicubic) widens the filter by the downscale factor and normalises each
# row's weights, as torch's _upsample_*_aa.


def _cubic(x: np.ndarray, a: float) -> np.ndarray:
    """Keys' cubic convolution kernel of |x| (zero beyond 2)."""
    x = np.abs(x)
    near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    far = ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
    return np.where(x <= 1.0, near, np.where(x < 2.0, far, 0.0))


def _resample_weights(mode: str, n_in: int, n_out: int, align_corners: bool,
                      scale: float | None, antialias: bool) -> np.ndarray:
    """The (n_out, n_in) matrix of bicubic or antialiased resampling of one dim (Note
    [Resampling as a weight matrix])."""
    if align_corners:
        ratio = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        ratio = n_in / n_out if scale is None or scale <= 0 else 1.0 / scale
    weights = np.zeros((n_out, n_in), dtype=np.float64)
    rows = np.arange(n_out)
    if not antialias:  # bicubic
        pos = rows * ratio if align_corners else (rows + 0.5) * ratio - 0.5
        base = np.floor(pos).astype(np.int64)
        t = pos - base
        for m in range(-1, 3):
            np.add.at(weights, (rows, np.clip(base + m, 0, n_in - 1)), _cubic(t - m, -0.75))
        return weights
    taps = 1.0 if mode == "bilinear" else 2.0
    support = taps * ratio if ratio >= 1.0 else taps
    inv = 1.0 / ratio if ratio >= 1.0 else 1.0
    for i in range(n_out):
        center = ratio * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), n_in)
        x = (np.arange(lo, hi) - center + 0.5) * inv
        w = np.maximum(0.0, 1.0 - np.abs(x)) if mode == "bilinear" else _cubic(x, -0.5)
        total = w.sum()
        weights[i, lo:hi] = w / total if total != 0 else w
    return weights


_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                  "old behavior is desired. See the documentation of grid_sample for details.")


def affine_grid(theta: Any, size: Sequence[int], align_corners: bool | None = None) -> Any:
    """The sampling grid (N, H, W, 2) (or (N, D, H, W, 3)) of the affine maps ``theta``
    (N, 2, 3) (or (N, 3, 4)) over the normalised output positions of ``size``."""
    E = backend_of(theta)
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    size = tuple(int(v) for v in size)
    nd = len(size) - 2
    if nd not in (2, 3):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if tuple(theta.shape) != (size[0], nd, nd + 1):
        raise ValueError(f"Expected a batch of {nd}D affine matrices of shape "
                         f"Nx{nd}x{nd + 1} for size {size}. Got {_size(theta)}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")

    def axis(n: int) -> np.ndarray:
        line = np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
        return line if align_corners else line * (n - 1) / n

    spatial = size[2:][::-1]  # x (width) first, as the grid's last dim
    mesh = np.meshgrid(*[axis(n) for n in spatial], indexing="ij")  # each (W, H[, D])
    base = np.stack([m.transpose() for m in mesh] + [np.ones(size[2:])], -1)
    flat = E.module.tensor(base.reshape(1, -1, nd + 1), dtype=theta.dtype)
    grid = E.module.matmul(flat, theta.transpose(1, 2))
    return grid.reshape(size[0], *size[2:], nd)


# Note [grid_sample as gathers]
# Each output position reads the input at grid coordinates mapped from [-1, 1] to pixels
# (align_corners: the corner pixels' centres; else their outer edges), after the padding
# rule (border: clamped; reflection: reflected at the edges, then clamped). (Bi/tri)linear
# sampling gathers the 2^d neighbours of each position (four in 2-D, eight in 3-D) from the
# flattened (N, C, H*W) or (N, C, D*H*W) input and weights each by the product of the
# fractional parts (or their complements), out-of-range neighbours counting as zero; nearest
# gathers the rounded position. The integer parts are constants (their derivative is zero
# almost everywhere), the fractional parts are differentiable functions of the grid: so the
# gradients to input and grid, and their own gradients, follow from gather and arithmetic.


def _grid_coordinate(E: Backend, coord: Any, size: int, align_corners: bool,
                     padding_mode: str) -> Any:
    """Normalised grid coordinates -> pixel coordinates under the padding rule."""
    pix = ((coord + 1.0) * 0.5 * (size - 1) if align_corners
           else ((coord + 1.0) * size - 1.0) * 0.5)
    if padding_mode == "border":
        return E.module.clamp(pix, 0.0, float(size - 1))
    if padding_mode == "reflection":
        low, span = (0.0, float(size - 1)) if align_corners else (-0.5, float(size))
        if span <= 0:
            return pix * 0.0
        dist = E.module.abs(pix - low)
        flips = np.floor(E.numpy(dist) / span)
        extra = dist - E.module.tensor(flips * span, dtype=pix.dtype)
        even = E.module.tensor(flips % 2 == 0)
        pix = E.module.where(even, extra + low, (span - extra) + low)
        return E.module.clamp(pix, 0.0, float(size - 1))
    return pix


def grid_sample(input: Any, grid: Any, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Any:
    """Sample (N, C, H, W) at the normalised positions of ``grid`` (N, Ho, Wo, 2) (x, y in
    [-1, 1]), or (N, C, D, H, W) at those of (N, Do, Ho, Wo, 3): (bi/tri)linear or nearest,
    with zeros, border or reflection padding (Note [grid_sample as gathers])."""
    E = backend_of(input)
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if input.ndim not in (4, 5):
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number "
                           f"of dimensions, but got input with sizes {list(input.shape)} and "
                           f"grid with sizes {list(grid.shape)}")
    if mode == "bicubic":
        raise NotImplementedError("grid_sample: mode='bicubic' is not supported")
    nd = input.ndim - 2
    if grid.ndim != input.ndim:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number "
                           f"of dimensions, but got input with sizes {list(input.shape)} and "
                           f"grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != nd:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nd} in last dimension, "
                           f"but got grid with sizes {list(grid.shape)}")
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    n, c = input.shape[0], input.shape[1]
    sizes = tuple(input.shape[2:])  # (H, W) or (D, H, W); the grid's coordinate 0 is x (W)
    out_shape = tuple(grid.shape[1:-1])
    points = math.prod(out_shape)
    coords = [_grid_coordinate(E, grid[..., nd - 1 - d], sizes[d], bool(align_corners),
                               padding_mode) for d in range(nd)]
    flat = input.reshape(n, c, math.prod(sizes))
    strides = [math.prod(sizes[d + 1:]) for d in range(nd)]

    def tap(at: list) -> Any:
        """The gathered values at integer positions ``at`` (one (N, *out) array per spatial
        dim), zero where out of range."""
        inside = np.ones(at[0].shape, dtype=bool)
        index = np.zeros(at[0].shape, dtype=np.int64)
        for d in range(nd):
            inside &= (at[d] >= 0) & (at[d] < sizes[d])
            index += at[d] * strides[d]
        index = np.where(inside, index, 0).reshape(n, 1, points)
        picked = E.module.gather(flat, 2, E.module.tensor(
            np.broadcast_to(index, (n, c, points)).copy(), dtype=E.module.int64))
        keep = E.module.tensor(inside.reshape(n, 1, points).astype(np.float64),
                               dtype=input.dtype)
        return picked * keep

    values = [E.numpy(p) for p in coords]
    if mode == "nearest":
        return tap([np.rint(v).astype(np.int64) for v in values]).reshape(n, c, *out_shape)
    base = [np.floor(v).astype(np.int64) for v in values]
    frac = [(p - E.module.tensor(b.astype(np.float64), dtype=p.dtype)).reshape(n, 1, points)
            for p, b in zip(coords, base)]
    terms = []
    for corner in itertools.product((0, 1), repeat=nd):
        term = tap([b + bit for b, bit in zip(base, corner)])
        for d, bit in enumerate(corner):
            term = term * (frac[d] if bit else 1.0 - frac[d])
        terms.append(term)
    return sum(terms[1:], terms[0]).reshape(n, c, *out_shape)


def upsample(input: Any, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Any:
    """Deprecated in torch in favour of interpolate, which it calls."""
    return interpolate(input, size, scale_factor, mode, align_corners)


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
    E = backend_of(input)
    return _maybe_inplace(input, inplace, E.op("relu"))


def relu_(input: Any) -> Any:
    return relu(input, inplace=True)


def tanh(input: Any) -> Any:
    E = backend_of(input)
    return E.op("tanh")(input)


def sigmoid(input: Any) -> Any:
    E = backend_of(input)
    return E.op("sigmoid")(input)


def silu(input: Any, inplace: bool = False) -> Any:
    E = backend_of(input)
    return _maybe_inplace(input, inplace, E.op("silu"))


def gelu(input: Any, *, approximate: str = "none") -> Any:
    E = backend_of(input)
    if approximate not in ("none", "tanh"):
        raise ArgumentError(f"approximate argument must be either none or tanh. (gelu: got "
                            f"{approximate!r})")
    return E.op("gelu")(input, approximate == "tanh")


def softplus(input: Any, beta: float = 1.0, threshold: float = 20.0) -> Any:
    E = backend_of(input)
    return E.op("softplus")(input, float(beta), float(threshold))


def elu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Any:
    E = backend_of(input)
    return _maybe_inplace(input, inplace, lambda x: E.op("elu")(x, float(alpha)))


def celu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Any:
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))``, i.e. ``alpha * elu(x / alpha)``."""
    E = backend_of(input)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _maybe_inplace(input, inplace,
                          lambda x: E.op("elu")(x * (1.0 / alpha), 1.0) * float(alpha))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Any, inplace: bool = False) -> Any:
    """``scale * elu(x, alpha)`` with the self-normalising constants of Klambauer et al."""
    E = backend_of(input)
    return _maybe_inplace(input, inplace,
                          lambda x: E.op("elu")(x, _SELU_ALPHA) * _SELU_SCALE)


def leaky_relu(input: Any, negative_slope: float = 0.01, inplace: bool = False) -> Any:
    E = backend_of(input)
    return _maybe_inplace(input, inplace,
                          lambda x: E.op("leaky_relu")(x, float(negative_slope)))


def leaky_relu_(input: Any, negative_slope: float = 0.01) -> Any:
    """``leaky_relu`` written into ``input``. As torch, whose in-place node recovers the input's
    sign from the result, a negative slope cannot be differentiated: the backward raises and
    points to the out-of-place version."""
    E = backend_of(input)

    def fn(x: Any) -> Any:
        y = E.op("leaky_relu")(x, float(negative_slope))
        if negative_slope < 0 and y.requires_grad:
            return _refusing_backward(y, _NEGATIVE_SLOPE_INPLACE)
        return y

    return _maybe_inplace(input, True, fn)


_NEGATIVE_SLOPE_INPLACE = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead.")

_REFUSING: dict = {}


def _refusing_backward(x: Any, message: str) -> Any:
    """``x`` through a node whose backward raises RuntimeError(message): a result torch computes
    but cannot differentiate."""
    from transgrad._backend import engine_module

    autograd = engine_module(x).autograd
    fn = _REFUSING.get(autograd)
    if fn is None:
        function_cls: Any = autograd.Function

        class LeakyReluBackward1(function_cls):  # type: ignore[misc,valid-type]
            @staticmethod
            def forward(ctx: Any, t: Any, msg: str) -> Any:
                ctx.msg = msg
                return t.clone()

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                raise RuntimeError(ctx.msg)

        fn = _REFUSING[autograd] = LeakyReluBackward1
    return fn.apply(x, message)


def rrelu(input: Any, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Any:
    """Randomized leaky ReLU: in training each negative element is scaled by its own slope
    drawn uniformly from [lower, upper]; in evaluation by their mean, ``leaky_relu``'s way."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        slope = (lower + upper) / 2
        return leaky_relu_(input, slope) if inplace else leaky_relu(input, slope)
    E = backend_of(input)

    def fn(x: Any) -> Any:
        noise = x.detach().new_empty(x.shape).uniform_(lower, upper)
        return E.op("where")(x >= 0, x, x * noise)

    return _maybe_inplace(input, inplace, fn)


def rrelu_(input: Any, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False) -> Any:
    return rrelu(input, lower, upper, training, inplace=True)


def prelu(input: Any, weight: Any) -> Any:
    """``max(0, x) + weight * min(0, x)``, one learned slope per channel (dim 1) or one in all."""
    E = backend_of(input)
    if input.ndim == 0:
        raise RuntimeError("Not allow zero-dim input tensor.")
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
    E = backend_of(input)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    # an integer input keeps its dtype: the bounds in it, as torch's
    cast = float if input.is_floating_point() else int
    return _maybe_inplace(input, inplace,
                          lambda x: E.module.clamp(x, cast(min_val), cast(max_val)))


def relu6(input: Any, inplace: bool = False) -> Any:
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input: Any, inplace: bool = False) -> Any:
    """``relu6(x + 3) / 6``."""
    E = backend_of(input)
    return _maybe_inplace(input, inplace,
                          lambda x: E.module.clamp(x + 3.0, 0.0, 6.0) * (1.0 / 6.0))


def hardswish(input: Any, inplace: bool = False) -> Any:
    """``x * relu6(x + 3) / 6``."""
    E = backend_of(input)
    return _maybe_inplace(input, inplace,
                          lambda x: x * E.module.clamp(x + 3.0, 0.0, 6.0) * (1.0 / 6.0))


def mish(input: Any, inplace: bool = False) -> Any:
    """``x * tanh(softplus(x))``."""
    E = backend_of(input)
    return _maybe_inplace(input, inplace,
                          lambda x: x * E.op("tanh")(E.op("softplus")(x, 1.0, 20.0)))


def softsign(input: Any) -> Any:
    """``x / (1 + |x|)``."""
    return input / (input.abs() + 1.0)


def logsigmoid(input: Any) -> Any:
    """``log(sigmoid(x))``, stable for large |x| (one LogSigmoidBackward0 node, as torch's)."""
    return backend_of(input).op("logsigmoid")(input)


def tanhshrink(input: Any) -> Any:
    """``x - tanh(x)``."""
    E = backend_of(input)
    return input - E.op("tanh")(input)


def hardshrink(input: Any, lambd: float = 0.5) -> Any:
    """``x`` where ``|x| > lambd``, else 0."""
    E = backend_of(input)
    return E.op("hardshrink")(input, float(lambd))


def softshrink(input: Any, lambd: float = 0.5) -> Any:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0: ``x`` less its
    clamp to [-lambd, lambd]."""
    E = backend_of(input)
    if not lambd >= 0:
        word, top = _dtype_range(input)
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype {word}, but "
                           f"found {lambd:g}")
    return E.op("softshrink")(input, float(lambd))


def _dtype_range(t: Any) -> tuple:
    """The dtype as torch's C++ messages spell it (``Float``, ``Double``, ...) and its
    largest finite value."""
    name = str(t.dtype).rpartition(".")[2]
    ranges = {"float32": ("Float", 3.4028234663852886e38), "float16": ("Half", 65504.0),
              "float64": ("Double", 1.7976931348623157e308),
              "bfloat16": ("BFloat16", 3.3895313892515355e38)}
    return ranges.get(name, (name, math.inf))


def threshold(input: Any, threshold: float, value: float, inplace: bool = False) -> Any:
    """``x`` where ``x > threshold``, else ``value``."""
    E = backend_of(input)
    return _maybe_inplace(input, inplace, lambda x: E.module.where(
        x > threshold, x, E.module.full_like(x, float(value))))


def glu(input: Any, dim: int = -1) -> Any:
    """``a * sigmoid(b)`` where ``a``, ``b`` are the two halves of ``input`` along ``dim``."""
    E = backend_of(input)
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
    E = backend_of(input)
    dim = _softmax_dim("softmax", input.ndim, dim, _stacklevel)
    return E.op("softmax")(_as_dtype(input, dtype), dim)


def log_softmax(input: Any, dim: int | None = None, _stacklevel: int = 3,
                dtype: Any = None) -> Any:
    """``log(softmax(x))`` along ``dim``, computed stably (cast to ``dtype`` first)."""
    E = backend_of(input)
    dim = _softmax_dim("log_softmax", input.ndim, dim, _stacklevel)
    return E.op("log_softmax")(_as_dtype(input, dtype), dim)


def softmin(input: Any, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Any:
    """``softmax(-x)`` along ``dim``."""
    E = backend_of(input)
    dim = _softmax_dim("softmin", input.ndim, dim, _stacklevel)
    return E.op("softmax")(-_as_dtype(input, dtype), dim)


# ---------------------------------------------------------------------------------------------
# Losses


def mse_loss(input: Any, target: Any, size_average: bool | None = None,
             reduce: bool | None = None, reduction: str = "mean", weight: Any = None) -> Any:
    """``(input - target)^2`` (a target of another shape broadcasts, with torch's warning)."""
    E = backend_of(input)
    reduction = _reduction_of(size_average, reduce, reduction)
    _warn_size(input, target)
    if (reduction == "none" or weight is not None
            or tuple(input.shape) != tuple(target.shape)):
        d = input - target
        return _reduce(E, d * d if weight is None else d * d * weight, reduction)
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


def _cast(E: Backend, t: Any, dtype: Any) -> Any:
    return t.to(dtype) if hasattr(t, "to") else E.op("cast")(t, dtype)


def _targets_ignored(E: Backend, target: Any, ignore_index: int, n_classes: int) -> bool:
    """Whether some target is ``ignore_index``; torch's error for a class index outside
    [0, n_classes) that is not (one pass over the targets)."""
    t = E.numpy(target)
    ignored = t == ignore_index
    bad = ~ignored & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(t[bad].flat[0])} is out of bounds.")
    return bool(ignored.any())


def nll_loss(input: Any, target: Any, weight: Any = None, size_average: bool | None = None,
             ignore_index: int = -100, reduce: bool | None = None,
             reduction: str = "mean") -> Any:
    """Negative log-likelihood of class indices, given log-probabilities (N, C[, d...])."""
    E = backend_of(input)
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_batch(input, target)
    logp, t, shape = _rows(input, target)
    _targets_ignored(E, t, ignore_index, logp.shape[1])
    if reduction != "none":
        return E.op("nll_loss")(logp, t, weight, int(ignore_index), reduction == "mean")
    return _unrows(_nll_none(E, logp, t, weight, ignore_index), shape)


def _check_batch(input: Any, target: Any) -> None:
    if input.ndim >= 2 and (target.ndim == 0 or target.shape[0] != input.shape[0]):
        n = target.shape[0] if target.ndim else 1
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({n}).")


def _nll_none(E: Backend, logp: Any, t: Any, weight: Any, ignore_index: int) -> Any:
    keep = t != ignore_index
    safe = E.op("where")(keep, t, t * 0)
    picked = E.op("gather")(logp, 1, safe.unsqueeze(1)).squeeze(1)
    w = _cast(E, keep, logp.dtype) if weight is None else (
        E.op("index_select")(weight, 0, safe) * _cast(E, keep, logp.dtype))
    return -(picked * w)


def cross_entropy(input: Any, target: Any, weight: Any = None,
                  size_average: bool | None = None, ignore_index: int = -100,
                  reduce: bool | None = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Any:
    """Cross entropy of logits (N, C[, d...]) against int64 class indices (N[, d...]) or
    class probabilities of the input's shape.

    The common case (no weight, no ignored target, no smoothing, mean or sum) is one fused
    formula; the rest is composed of log_softmax and nll_loss, as PyTorch defines it.
    """
    E = backend_of(input)
    reduction = _reduction_of(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be in [0, 1], got {label_smoothing}")
    if tuple(target.shape) == tuple(input.shape) and input.ndim >= 1:
        return _cross_entropy_probs(E, input, target, weight, ignore_index, reduction,
                                    label_smoothing)
    if "int" not in str(target.dtype):
        raise TypeError("cross_entropy: target must hold int64 class indices "
                        f"(got dtype {target.dtype}) or class probabilities of the input's "
                        f"shape {tuple(input.shape)}")
    _check_batch(input, target)
    logits, t, shape = _rows(input, target)
    ignored = _targets_ignored(E, t, ignore_index, logits.shape[1])
    if weight is None and label_smoothing == 0.0 and reduction != "none" and not ignored:
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


_TORCH_SCALAR_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                       "uint8": "Byte", "bool": "Bool"}


def _cross_entropy_probs(E: Backend, input: Any, target: Any, weight: Any, ignore_index: int,
                         reduction: str, label_smoothing: float) -> Any:
    """``-sum_c target_c log_softmax(input)_c`` over the class dim 1 (0 when unbatched); the
    mean divides by the number of rows, not by the weights, as torch."""
    if "float" not in str(target.dtype):
        name = str(target.dtype).split(".")[-1]
        raise RuntimeError("Expected floating point type for target with class "
                           f"probabilities, got {_TORCH_SCALAR_NAMES.get(name, name)}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    cdim = 1 if input.ndim >= 2 else 0
    c = input.shape[cdim]
    logp = log_softmax(input, cdim)
    if label_smoothing > 0.0:
        target = target * (1.0 - label_smoothing) + label_smoothing / c
    terms = logp * target
    if weight is not None:
        terms = terms * weight.reshape(c, *([1] * (input.ndim - cdim - 1)))
    loss = -terms.sum(cdim)
    if reduction == "mean":
        return loss.sum() / (input.numel() // c) if input.numel() else loss.sum() / 0.0
    return _reduce(E, loss, reduction)


def binary_cross_entropy_with_logits(input: Any, target: Any, weight: Any = None,
                                     size_average: bool | None = None,
                                     reduce: bool | None = None, reduction: str = "mean",
                                     pos_weight: Any = None) -> Any:
    """``-(pos_weight t log sigmoid(x) + (1 - t) log(1 - sigmoid(x)))``, stably, times
    ``weight``."""
    E = backend_of(input)
    reduction = _reduction_of(size_average, reduce, reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"Target size ({_size(target)}) must be the same as input size "
                         f"({_size(input)})")
    if reduction == "none":
        return E.op("binary_cross_entropy_with_logits_unreduced")(input, target, weight,
                                                                   pos_weight)
    return E.op("binary_cross_entropy_with_logits")(input, target, weight, pos_weight,
                                                    reduction == "mean")


def l1_loss(input: Any, target: Any, size_average: bool | None = None,
            reduce: bool | None = None, reduction: str = "mean") -> Any:
    """``|input - target|``."""
    E = backend_of(input)
    reduction = _reduction_of(size_average, reduce, reduction)
    _warn_size(input, target)
    return _reduce(E, (input - target).abs(), reduction)


def smooth_l1_loss(input: Any, target: Any, size_average: bool | None = None,
                   reduce: bool | None = None, reduction: str = "mean",
                   beta: float = 1.0) -> Any:
    """``0.5 d^2 / beta`` where ``d = |input - target| < beta``, else ``d - beta / 2``."""
    E = backend_of(input)
    reduction = _reduction_of(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _warn_size(input, target)
    d = (input - target).abs()
    if beta == 0.0:
        return _reduce(E, d, reduction)
    loss = E.module.where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta)
    return _reduce(E, loss, reduction)


def huber_loss(input: Any, target: Any, reduction: str = "mean", delta: float = 1.0,
               weight: Any = None) -> Any:
    """``0.5 d^2`` where ``d = |input - target| < delta``, else ``delta (d - delta / 2)``."""
    E = backend_of(input)
    _check_reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _warn_size(input, target)
    d = (input - target).abs()
    loss = E.module.where(d < delta, d * d * 0.5, (d - 0.5 * delta) * delta)
    return _reduce(E, loss if weight is None else loss * weight, reduction)


def binary_cross_entropy(input: Any, target: Any, weight: Any = None,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Any:
    """``-(t log x + (1 - t) log(1 - x))`` of probabilities ``x``; each log is clamped at
    -100 as torch, so that ``x`` of exactly 0 or 1 gives a finite loss."""
    E = backend_of(input)
    reduction = _reduction_of(size_average, reduce, reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"Using a target size ({_size(target)}) that is different to the "
                         f"input size ({_size(input)}) is deprecated. Please ensure they have "
                         "the same size.")
    x = E.numpy(input)
    if x.size and (np.nanmin(x) < 0 or np.nanmax(x) > 1):
        raise RuntimeError("all elements of input should be between 0 and 1")
    _check_reduction(reduction)
    if weight is None:
        return E.op("binary_cross_entropy")(input, target, _REDUCTION_CODES[reduction])
    loss = E.op("binary_cross_entropy")(input, target, 0)
    return _reduce(E, loss * weight, reduction)


def kl_div(input: Any, target: Any, size_average: bool | None = None,
           reduce: bool | None = None, reduction: str = "mean",
           log_target: bool = False) -> Any:
    """Pointwise ``target (log target - input)`` of log-probabilities ``input`` (``target``
    itself a log-probability when ``log_target``); ``reduction="batchmean"`` divides the sum
    by the batch size, the mathematically right KL divergence."""
    E = backend_of(input)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                      "the support size.'batchmean' divides only by the batch size, and aligns "
                      "with the KL div math definition.'mean' will be changed to behave the "
                      "same as 'batchmean' in the next major release.", UserWarning,
                      stacklevel=2)
    elif reduction not in _REDUCTIONS + ("batchmean",):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = E.module.xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim else loss.sum()
    return _reduce(E, loss, reduction)


def poisson_nll_loss(input: Any, target: Any, log_input: bool = True, full: bool = False,
                     size_average: bool | None = None, eps: float = 1e-8,
                     reduce: bool | None = None, reduction: str = "mean") -> Any:
    """Negative log-likelihood of ``target`` under Poisson(rate): ``exp(input) - target *
    input`` (``log_input``) or ``input - target log(input + eps)``; ``full`` adds Stirling's
    approximation of ``log(target!)`` where target > 1."""
    E = backend_of(input)
    reduction = _reduction_of(size_average, reduce, reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        above = target > 1
        safe = E.module.where(above, target, E.module.ones_like(target))
        stirling = safe * safe.log() - safe + 0.5 * (2.0 * math.pi * safe).log()
        loss = loss + E.module.where(above, stirling, E.module.zeros_like(stirling))
    return _reduce(E, loss, reduction)


def gaussian_nll_loss(input: Any, target: Any, var: Any, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Any:
    """``0.5 (log var + (input - target)^2 / var)`` (+ ``0.5 log 2 pi`` when ``full``);
    ``var`` is clamped at ``eps`` for the value only (its gradient passes unchanged, as
    torch's clamp under no_grad), and may lack the last dim or have it of size 1."""
    E = backend_of(input)
    if isinstance(var, (int, float)):
        var = E.module.full_like(input, float(var))
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    if bool((E.numpy(var) < 0).any()):
        raise ValueError("var has negative entry/entries")
    with E.no_grad():
        shift = E.module.clamp(var, min=eps) - var
    var = var + shift
    d = input - target
    loss = 0.5 * (var.log() + d * d / var)
    if full:
        loss = loss + 0.5 * math.log(2.0 * math.pi)
    return _reduce(E, loss, reduction)


def cosine_embedding_loss(input1: Any, input2: Any, target: Any, margin: float = 0.0,
                          size_average: bool | None = None, reduce: bool | None = None,
                          reduction: str = "mean") -> Any:
    """``1 - cos(x1, x2)`` where target is 1, ``max(0, cos(x1, x2) - margin)`` where -1
    (cosine along the last dim, its squared norms offset by 1e-12 as torch)."""
    E = backend_of(input1)
    reduction = _reduction_of(size_average, reduce, reduction)
    if input1.ndim not in (1, 2) or tuple(input1.shape) != tuple(input2.shape):
        raise RuntimeError(f"cosine_embedding_loss: expected inputs of the same 1D or 2D "
                           f"shape, got {tuple(input1.shape)} and {tuple(input2.shape)}")
    prod = (input1 * input2).sum(-1)
    mag = ((input1 * input1).sum(-1) + 1e-12) * ((input2 * input2).sum(-1) + 1e-12)
    cos = prod / mag.sqrt()
    zero = E.module.zeros_like(cos)
    loss = (E.module.where(target == 1, 1.0 - cos, zero)
            + E.module.where(target == -1, (cos - margin).clamp_min(0.0), zero))
    return _reduce(E, loss, reduction)


def margin_ranking_loss(input1: Any, input2: Any, target: Any, margin: float = 0.0,
                        size_average: bool | None = None, reduce: bool | None = None,
                        reduction: str = "mean") -> Any:
    """``max(0, -target (input1 - input2) + margin)``."""
    E = backend_of(input1)
    reduction = _reduction_of(size_average, reduce, reduction)
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same "
                           f"dimension but got sizes: input1: {_size(input1)}, input2: "
                           f"{_size(input2)}, target: {_size(target)} ")
    return _reduce(E, (-target * (input1 - input2) + margin).clamp_min(0.0), reduction)


def pairwise_distance(x1: Any, x2: Any, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Any:
    """``||x1 - x2 + eps||_p`` along the last dim."""
    E = backend_of(x1)
    return E.module.norm(x1 - x2 + eps, p, -1, keepdim)


def gumbel_softmax(logits: Any, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Any:
    """A sample of the Gumbel-softmax distribution: ``softmax((logits + g) / tau)`` with
    ``g = -log(Exponential(1))`` noise drawn as torch draws it (``exponential_``: torch's numbers
    for torch's seed). ``hard`` returns the one-hot of the argmax in the forward pass with the
    soft sample's gradient (the straight-through estimator)."""
    E = backend_of(logits)
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", UserWarning,
                      stacklevel=2)
    with E.no_grad():
        noise = -E.module.empty_like(logits).exponential_().log()
    y_soft = ((logits + noise) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = E.module.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def cosine_similarity(x1: Any, x2: Any, dim: int = 1, eps: float = 1e-8) -> Any:
    """``sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps))`` along ``dim``, the inputs
    broadcast, as torch computes it (each input divided by its norm first, which keeps the
    result in [-1, 1]). torch clamps the norms in place under no_grad, so the gradient flows
    through the unclamped norm: ``n + (clamp(n) - n).detach()`` gives that value and gradient."""
    E = backend_of(x1)
    M = E.module
    common = M.result_type(x1, x2)
    if not M.empty((), dtype=common).is_floating_point():
        raise RuntimeError("expected common dtype to be floating point, yet common dtype is "
                           f"{_TORCH_SCALAR_NAMES.get(str(common).split('.')[-1], common)}")
    x1, x2 = M.broadcast_tensors(x1.to(common), x2.to(common))
    n1 = M.linalg.vector_norm(x1, 2, dim=dim, keepdim=True)
    n2 = M.linalg.vector_norm(x2, 2, dim=dim, keepdim=True)
    n1 = n1 + (n1.clamp_min(eps) - n1).detach()
    n2 = n2 + (n2.clamp_min(eps) - n2).detach()
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def normalize(input: Any, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Any = None) -> Any:
    """``input / max(||input||_p, eps)`` along ``dim`` (the norm kept as a dim of size 1);
    written into ``out`` when given."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    E = backend_of(input)
    with E.no_grad():
        out.copy_(input / denom)
    return out


def triplet_margin_loss(anchor: Any, positive: Any, negative: Any, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False,
                        size_average: bool | None = None, reduce: bool | None = None,
                        reduction: str = "mean") -> Any:
    """``max(0, margin + d(a, p) - d(a, n))`` with ``pairwise_distance``; ``swap`` uses
    ``min(d(a, n), d(p, n))`` as the negative distance."""
    E = backend_of(anchor)
    reduction = _reduction_of(size_average, reduce, reduction)
    if not (anchor.ndim == positive.ndim == negative.ndim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {anchor.ndim}D, "
                           f"positive {positive.ndim}D, and negative {negative.ndim}D inputs")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = E.module.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce(E, (d_pos - d_neg + margin).clamp_min(0.0), reduction)


def hinge_embedding_loss(input: Any, target: Any, margin: float = 1.0,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Any:
    """``input`` where target is 1, ``max(0, margin - input)`` where -1."""
    E = backend_of(input)
    reduction = _reduction_of(size_average, reduce, reduction)
    zero = E.module.zeros_like(input)
    loss = (E.module.where(target != 1, (margin - input).clamp_min(0.0), zero)
            + E.module.where(target != -1, input, zero))
    return _reduce(E, loss, reduction)


def soft_margin_loss(input: Any, target: Any, size_average: bool | None = None,
                     reduce: bool | None = None, reduction: str = "mean") -> Any:
    """``log(1 + exp(-target input))``."""
    E = backend_of(input)
    reduction = _reduction_of(size_average, reduce, reduction)
    # input first: a shape mismatch then names the shapes in torch's order
    return _reduce(E, E.op("softplus")(-(input * target), 1.0, 20.0), reduction)


def multilabel_soft_margin_loss(input: Any, target: Any, weight: Any = None,
                                size_average: bool | None = None, reduce: bool | None = None,
                                reduction: str = "mean") -> Any:
    """Binary cross entropy of each of C labels from logits, averaged over the labels
    (the last dim), then reduced over the batch."""
    E = backend_of(input)
    reduction = _reduction_of(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1.0 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(-1) / input.shape[-1]
    return _reduce(E, loss, reduction)


def _check_margin_input(input: Any) -> None:
    """torch's check of a margin loss's input: a non-empty vector or matrix (a 0-dim batch
    allowed)."""
    if not (input.ndim <= 1 and input.numel() > 0 or input.ndim == 2 and input.shape[1] > 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")


def multi_margin_loss(input: Any, target: Any, p: int = 1, margin: float = 1.0,
                      weight: Any = None, size_average: bool | None = None,
                      reduce: bool | None = None, reduction: str = "mean") -> Any:
    """Multi-class hinge loss of scores (N, C) or (C,) against class indices: per sample,
    ``sum over i != y of w[y] max(0, margin - x[y] + x[i])^p / C``."""
    E = backend_of(input)
    reduction = _reduction_of(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    _check_margin_input(input)
    x = input if input.ndim == 2 else input.reshape(1, -1)
    n, c = x.shape
    t = E.numpy(target).reshape(-1).astype(np.int64)
    if target.ndim > 1 or t.size != n:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to "
                           f"the number of input samples (batch size). Expected target size "
                           f"[{n}], but got {list(target.shape)}. Input has shape "
                           f"{list(input.shape)}.")
    if t.size and (t.min() < 0 or t.max() >= c):
        raise RuntimeError("target out of range")
    index = E.module.tensor(t.reshape(n, 1), dtype=E.module.int64)
    hinge = E.op("relu")(margin - E.module.gather(x, 1, index) + x)
    if p == 2:
        hinge = hinge * hinge
    if weight is not None:
        hinge = hinge * E.module.index_select(weight, 0, index.reshape(-1)).reshape(n, 1)
    others = np.ones((n, c), dtype=np.float64)
    others[np.arange(n), t] = 0.0  # the target's own term is not a margin violation
    loss = (hinge * E.module.tensor(others, dtype=input.dtype)).sum(1) / c
    if input.ndim < 2 and target.ndim == 0:
        loss = loss.reshape(())
    return _reduce(E, loss, reduction)


def multilabel_margin_loss(input: Any, target: Any, size_average: bool | None = None,
                           reduce: bool | None = None, reduction: str = "mean") -> Any:
    """Multi-label hinge loss of scores (N, C) or (C,): each row of ``target`` lists its
    classes up to the first -1; per sample, ``sum over listed j and unlisted i of
    max(0, 1 - (x[j] - x[i])) / C`` (Note [multilabel_margin_loss as pair weights])."""
    E = backend_of(input)
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_margin_input(input)
    x = input if input.ndim == 2 else input.reshape(1, -1)
    n, c = x.shape
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    labels = E.numpy(target).reshape(n, c).astype(np.int64)
    count = np.zeros((n, c), dtype=np.float64)  # how often each class is listed
    for row in range(n):
        for j in labels[row]:
            if j < 0:
                break
            if j >= c:
                raise RuntimeError("argument #2 'target' is out of range")
            count[row, j] += 1.0
    pairs = count[:, :, None] * (count == 0)[:, None, :].astype(np.float64)
    hinge = E.op("relu")(1.0 - x.unsqueeze(2) + x.unsqueeze(1))
    loss = (hinge * E.module.tensor(pairs, dtype=input.dtype)).sum((1, 2)) / c
    if input.ndim < 2:
        loss = loss.reshape(())
    return _reduce(E, loss, reduction)


# Note [multilabel_margin_loss as pair weights]
# The loss sums a hinge over (listed class j, unlisted class i) pairs; a class listed twice
# counts twice, as torch's loop over the target row. All pairs' hinges form one (N, C, C)
# tensor, weighted by a constant matrix of counts (listed j) times indicators (unlisted i):
# target is not differentiable, so the weights are constants and the gradient is exact.


_CTC_FLOOR = -1e30  # stands for log(0) in the CTC recursion (Note [CTC as a composite])


def ctc_loss(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> Any:
    """Connectionist temporal classification loss of log-probabilities (T, N, C) (or (T, C))
    against label sequences (N, S) padded or 1-D concatenated (Note [CTC as a composite]);
    "mean" divides each loss by its target length, then averages over the batch, as torch."""
    E = backend_of(log_probs)
    _check_reduction(reduction)
    if log_probs.ndim == 2:
        loss = ctc_loss(log_probs.unsqueeze(1), targets.reshape(1, -1) if targets.ndim == 1
                        else targets, _lengths(E, input_lengths), _lengths(E, target_lengths),
                        blank, "none", zero_infinity)
        return loss.squeeze(0) if reduction == "none" else _ctc_reduce(
            E, loss, _lengths(E, target_lengths), reduction)
    if log_probs.ndim != 3:
        raise ArgumentError(f"ctc_loss: log_probs must be (T, N, C) or (T, C), got shape "
                            f"{tuple(log_probs.shape)}")
    t_max, n, _ = tuple(log_probs.shape)
    in_len, tg_len = _lengths(E, input_lengths), _lengths(E, target_lengths)
    labels = E.numpy(targets).astype(np.int64)
    if len(in_len) != n or len(tg_len) != n:
        raise RuntimeError(f"ctc_loss: expected input_lengths and target_lengths of length "
                           f"{n}, got {len(in_len)} and {len(tg_len)}")
    if (in_len > t_max).any():
        raise RuntimeError(f"Expected input_lengths to have value at most {t_max}, but got "
                           f"value {int(in_len.max())}")
    # torch's checks of the target lengths: numpy's slicing would silently cut a length the
    # targets do not have, and the loss of the shorter sequence would come back
    if (tg_len < 0).any():
        raise RuntimeError(f"ctc_loss: target_lengths must be non-negative, got {tg_len.tolist()}")
    if labels.ndim == 2 and n and int(tg_len.max()) > labels.shape[1]:
        raise RuntimeError(f"Expected tensor to have size at least {int(tg_len.max())} at "
                           f"dimension 1, but got size {labels.shape[1]} for argument #2 "
                           "'targets' (while checking arguments for ctc_loss_cpu)")
    if labels.ndim == 1 and int(tg_len.sum()) > labels.shape[0]:
        raise RuntimeError(f"ctc_loss: target_lengths sum to {int(tg_len.sum())}, more than the "
                           f"{labels.shape[0]} concatenated targets")
    starts = np.concatenate([[0], np.cumsum(tg_len)[:-1]])
    losses = []
    for b in range(n):
        seq = (labels[b, :tg_len[b]] if labels.ndim == 2
               else labels[starts[b]:starts[b] + tg_len[b]])
        lp = log_probs[:int(in_len[b]), b]
        losses.append(_ctc_sequence(E, lp, seq, blank, zero_infinity))
    loss = E.module.stack(losses, 0)
    return loss if reduction == "none" else _ctc_reduce(E, loss, tg_len, reduction)


# Note [CTC as a composite]
# The loss of one sequence is -log of the sum over alignments, computed by the forward
# recursion over the extended labels l' = (blank, l1, blank, l2, ..., blank): alpha_t(s) =
# logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2) when l'_s is not blank and
# differs from l'_{s-2}) + log p_t(l'_s). Written with differentiable ops (index_select, pad,
# stack, logsumexp), its gradient is autograd's, exact to any order, with no hand-written
# beta recursion. log(0) is a large finite negative number, so that logsumexp over states not
# reached yet has a finite (zero) gradient where -inf would give 0/0; a loss at that scale is
# an impossible alignment: inf, or 0 with ``zero_infinity`` (its gradient then zero too).


def _ctc_sequence(E: Backend, lp: Any, seq: np.ndarray, blank: int,
                  zero_infinity: bool) -> Any:
    ext = np.full(2 * len(seq) + 1, blank, dtype=np.int64)
    ext[1::2] = seq
    n_states = len(ext)
    emit = E.op("index_select")(lp, 1, E.module.tensor(ext, dtype=E.module.int64))
    skip = np.zeros(n_states, dtype=bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    skip_mask = E.module.tensor(skip)
    floor = E.module.full((n_states,), _CTC_FLOOR, dtype=lp.dtype)
    start = np.full(n_states, _CTC_FLOOR)
    start[:min(2, n_states)] = 0.0
    alpha = emit[0] + E.module.tensor(start, dtype=lp.dtype) if lp.shape[0] else floor
    for t in range(1, lp.shape[0]):
        one = pad(alpha, (1, 0), value=_CTC_FLOOR)[:n_states]
        two = E.module.where(skip_mask, pad(alpha, (2, 0), value=_CTC_FLOOR)[:n_states], floor)
        alpha = E.module.logsumexp(E.module.stack([alpha, one, two], 0), 0) + emit[t]
    ends = alpha[n_states - 2:] if n_states > 1 else alpha
    loss = -E.module.logsumexp(ends, 0)
    if float(E.numpy(loss)) > -_CTC_FLOOR / 2:
        return loss * 0.0 if zero_infinity else loss * 0.0 + math.inf
    return loss


def _lengths(E: Backend, v: Any) -> np.ndarray:
    return np.atleast_1d(np.asarray(E.numpy(v) if hasattr(v, "shape") and not isinstance(
        v, np.ndarray) else v, dtype=np.int64))


def _ctc_reduce(E: Backend, loss: Any, tg_len: np.ndarray, reduction: str) -> Any:
    if reduction == "sum":
        return loss.sum()
    div = E.module.tensor(np.maximum(tg_len, 1).astype(np.float64), dtype=loss.dtype)
    return (loss / div).mean()


def one_hot(tensor: Any, num_classes: int = -1) -> Any:
    """int64 one-hot encoding, last dim of size ``num_classes`` (max + 1 when -1)."""
    E = backend_of(tensor)
    idx = E.numpy(tensor).astype(np.int64)
    n = int(idx.max()) + 1 if num_classes < 0 else num_classes
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ArgumentError(f"one_hot: class values must be in [0, {n})")
    out = np.eye(n, dtype=np.int64)[idx]
    return E.module.tensor(out, dtype=E.module.int64)


__all__ = [
    "adaptive_avg_pool2d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "alpha_dropout",
    "avg_pool1d",
    "avg_pool2d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "celu",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "cosine_embedding_loss",
    "cosine_similarity",
    "cross_entropy",
    "ctc_loss",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "elu",
    "embedding",
    "embedding_bag",
    "fold",
    "gaussian_nll_loss",
    "gelu",
    "glu",
    "gumbel_softmax",
    "group_norm",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hinge_embedding_loss",
    "huber_loss",
    "instance_norm",
    "interpolate",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "local_response_norm",
    "log_softmax",
    "logsigmoid",
    "margin_ranking_loss",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "mish",
    "mse_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "normalize",
    "one_hot",
    "pad",
    "pairwise_distance",
    "pixel_shuffle",
    "pixel_unshuffle",
    "poisson_nll_loss",
    "prelu",
    "relu",
    "relu6",
    "relu_",
    "rms_norm",
    "rrelu",
    "rrelu_",
    "selu",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "soft_margin_loss",
    "softmax",
    "softmin",
    "softplus",
    "softsign",
    "tanh",
    "tanhshrink",
    "affine_grid",
    "grid_sample",
    "adaptive_avg_pool1d",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "conv_transpose3d",
    "avg_pool3d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool3d",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
    "hardshrink",
    "softshrink",
    "threshold",
    "triplet_margin_loss",
    "unfold",
    "upsample",
]
