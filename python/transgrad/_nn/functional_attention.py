"""Attention, engine-neutral (torch.nn.functional): ``scaled_dot_product_attention`` and
``multi_head_attention_forward``, re-exported by both engines' ``nn.functional``.

Input -> output as torch: queries (..., L, E), keys (..., S, E), values (..., S, Ev) ->
(..., L, Ev), each query's softmax-weighted mix of the values; masks are boolean (True = take
part, for ``attn_mask``; True = ignore, for ``key_padding_mask``, as torch) or additive floats.

Invariant: the attention itself is one formula, ``sdpa`` (Note [sdpa keeps its attention
weights] in formulas/nn.py), fed an additive float mask (a boolean mask and ``is_causal`` become
-inf entries here) and dropout's keep-mask drawn from the engine's generator; the rest is
differentiable ops, so both engines differentiate attention to any order. A row whose keys are
all masked out gives NaN, as torch's math path does. ``multi_head_attention_forward`` returning
the weights (``need_weights``) computes them with ops, as torch's math path.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from transgrad._backend import Backend, backend_of

from .functional import dropout, linear


def _is_bool(t: Any) -> bool:
    return "bool" in str(t.dtype)


def _causal_mask(E: Backend, L: int, S: int) -> Any:
    return E.module.tril(E.module.ones(L, S, dtype=E.module.bool))


def _repeat_heads(t: Any, repeats: int) -> Any:
    """(..., H, S, E) -> (..., H * repeats, S, E), each head repeated ``repeats`` times in a
    row (torch's repeat_interleave on dim -3)."""
    if repeats == 1:
        return t
    shape = tuple(t.shape)
    lead, h = shape[:-3], shape[-3]
    expanded = t.unsqueeze(-3).expand(lead + (h, repeats) + shape[-2:])
    return expanded.reshape(lead + (h * repeats,) + shape[-2:])


def scaled_dot_product_attention(query: Any, key: Any, value: Any, attn_mask: Any = None,
                                 dropout_p: float = 0.0, is_causal: bool = False,
                                 scale: float | None = None, enable_gqa: bool = False) -> Any:
    """``softmax(query @ key.T * scale + mask) @ value``, scale 1/sqrt(E) by default; a
    boolean ``attn_mask`` keeps the True positions, a float one is added; ``is_causal`` masks
    key j > query i; ``enable_gqa`` lets query heads share key/value heads (dim -3)."""
    E = backend_of(query)
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                           "set when is_causal=True")
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must have at "
                           "least 2 dims (..., L, E)")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(f"scaled_dot_product_attention: query and key must have the same "
                           f"embedding size, got {query.shape[-1]} and {key.shape[-1]}")
    if enable_gqa and query.ndim >= 3 and key.ndim >= 3:
        hq, hk = int(query.shape[-3]), int(key.shape[-3])
        if hk == 0 or hq % hk:
            raise RuntimeError(f"scaled_dot_product_attention: number of heads in query "
                               f"({hq}) must be a multiple of that of key and value ({hk})")
        key, value = _repeat_heads(key, hq // hk), _repeat_heads(value, hq // hk)
    L, S = int(query.shape[-2]), int(key.shape[-2])
    factor = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    if is_causal:
        attn_mask = _causal_mask(E, L, S)
    if attn_mask is not None and _is_bool(attn_mask):
        attn_mask = _additive(E, attn_mask.logical_not(), query.dtype)
    return _attend(E, query, key, value, attn_mask, factor, dropout_p)


def _additive(E: Backend, masked_out: Any, dtype: Any) -> Any:
    """An additive float mask: -inf where ``masked_out`` (bool) is True, 0 elsewhere."""
    zeros = E.module.zeros(tuple(masked_out.shape), dtype=dtype)
    return zeros.masked_fill(masked_out, float("-inf"))


def _attend(E: Backend, q: Any, k: Any, v: Any, mask: Any, factor: float,
            dropout_p: float) -> Any:
    """``softmax(q @ k^T * factor + mask)``, dropped out with ``dropout_p``, ``@ v``: the
    ``sdpa`` formula, given dropout's scaled keep-mask."""
    drop = None
    if dropout_p > 0.0:
        shapes = [tuple(q.shape[:-2]), tuple(k.shape[:-2]), tuple(v.shape[:-2])]
        if mask is not None:
            shapes.append(tuple(mask.shape[:-2]))
        weights_shape = np.broadcast_shapes(*shapes) + (int(q.shape[-2]), int(k.shape[-2]))
        keep = 1.0 - dropout_p
        drop = (E.bernoulli_mask(weights_shape, keep, q.dtype) * (1.0 / keep) if keep > 0.0
                else E.module.zeros(weights_shape, dtype=q.dtype))
    return E.op("sdpa")(q, k, v, mask, factor, drop)


def _float_mask(E: Backend, mask: Any, dtype: Any, name: str) -> Any:
    """A boolean mask (True = masked out) as an additive float mask; a float mask as is."""
    if mask is None:
        return None
    if _is_bool(mask):
        zeros = E.module.zeros(tuple(mask.shape), dtype=dtype)
        return zeros.masked_fill(mask, float("-inf"))
    if "float" not in str(mask.dtype):
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def multi_head_attention_forward(
        query: Any, key: Any, value: Any, embed_dim_to_check: int, num_heads: int,
        in_proj_weight: Any, in_proj_bias: Any, bias_k: Any, bias_v: Any,
        add_zero_attn: bool, dropout_p: float, out_proj_weight: Any, out_proj_bias: Any,
        training: bool = True, key_padding_mask: Any = None, need_weights: bool = True,
        attn_mask: Any = None, use_separate_proj_weight: bool = False,
        q_proj_weight: Any = None, k_proj_weight: Any = None, v_proj_weight: Any = None,
        static_k: Any = None, static_v: Any = None, average_attn_weights: bool = True,
        is_causal: bool = False) -> tuple[Any, Any]:
    """torch's multi-head attention on sequence-first inputs (L, N, E) or unbatched (L, E):
    project, split into heads, attend (masks merged into one additive mask), join, project
    out; returns (output, weights averaged over heads or per head, or None)."""
    return multi_head_attention(
        query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k,
        bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training,
        key_padding_mask, need_weights, attn_mask, use_separate_proj_weight, q_proj_weight,
        k_proj_weight, v_proj_weight, static_k, static_v, average_attn_weights, is_causal,
        batch_first=False)


# Note [Attention in the batch-first layout]
# torch's MultiheadAttention(batch_first=True) transposes its (N, L, E) inputs to (L, N, E) and
# back. Here the heads are split from either layout directly ((N, L, H, D) or (L, N, H, D),
# permuted to (N, H, L, D) as views), so batch-first inputs are never transposed: the
# projections then read contiguous rows (one gemm each, Note [linear as one gemm] in
# formulas/nn.py), where a transposed input would be copied for each of them, forward and
# backward. Only the sequence and batch dims (``seq``, ``bat``) differ between the layouts.


def multi_head_attention(
        query: Any, key: Any, value: Any, embed_dim_to_check: int, num_heads: int,
        in_proj_weight: Any, in_proj_bias: Any, bias_k: Any, bias_v: Any,
        add_zero_attn: bool, dropout_p: float, out_proj_weight: Any, out_proj_bias: Any,
        training: bool, key_padding_mask: Any, need_weights: bool, attn_mask: Any,
        use_separate_proj_weight: bool, q_proj_weight: Any, k_proj_weight: Any,
        v_proj_weight: Any, static_k: Any, static_v: Any, average_attn_weights: bool,
        is_causal: bool, batch_first: bool) -> tuple[Any, Any]:
    """``multi_head_attention_forward`` on (L, N, E) inputs, or (N, L, E) ones when
    ``batch_first`` (Note [Attention in the batch-first layout]); unbatched inputs are (L, E)
    either way."""
    E = backend_of(query)
    m = E.module
    batched = query.ndim == 3
    if not batched:
        batch_first = False
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    seq, bat = (1, 0) if batch_first else (0, 1)
    tgt_len, bsz, embed_dim = int(query.shape[seq]), int(query.shape[bat]), int(query.shape[2])
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k / static_v are not "
                                  "supported")
    # -- input projections
    if use_separate_proj_weight:
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q = linear(query, q_proj_weight, b_q)
        k = linear(key, k_proj_weight, b_k)
        v = linear(value, v_proj_weight, b_v)
    else:
        w_q, w_k, w_v = in_proj_weight.chunk(3)
        b_q, b_k, b_v = in_proj_bias.chunk(3) if in_proj_bias is not None else (None,) * 3
        q, k, v = linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)
    # -- masks as one additive float mask (N or N * heads, L, S), or None
    attn_mask = _float_mask(E, attn_mask, q.dtype, "attn_mask")
    src_len = int(key.shape[seq])
    if attn_mask is not None:
        want = {2: (tgt_len, src_len), 3: (bsz * num_heads, tgt_len, src_len)}.get(
            attn_mask.ndim)
        if want is None:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
        if tuple(attn_mask.shape) != want:
            raise RuntimeError(f"The shape of the {attn_mask.ndim}D attn_mask is "
                               f"{_size(attn_mask.shape)}, but should be {want}.")
    key_padding_mask = _float_mask(E, key_padding_mask, q.dtype, "key_padding_mask")
    if bias_k is not None and bias_v is not None:
        one_row = (bsz, 1, embed_dim) if batch_first else (1, bsz, embed_dim)
        k = m.cat([k, bias_k.reshape((1, 1, embed_dim)).expand(one_row)], seq)
        v = m.cat([v, bias_v.reshape((1, 1, embed_dim)).expand(one_row)], seq)
        attn_mask = _pad_last(E, attn_mask)
        key_padding_mask = _pad_last(E, key_padding_mask)
    # -- heads: (L, N, E) or (N, L, E) -> (N, H, L, head_dim), a view
    order = (0, 2, 1, 3) if batch_first else (1, 2, 0, 3)
    q, k, v = (t.reshape(tuple(t.shape[:2]) + (num_heads, head_dim)).permute(*order)
               for t in (q, k, v))
    if add_zero_attn:
        zeros = m.zeros((bsz, num_heads, 1, head_dim), dtype=q.dtype)
        k, v = m.cat([k, zeros], 2), m.cat([v, zeros], 2)
        attn_mask = _pad_last(E, attn_mask)
        key_padding_mask = _pad_last(E, key_padding_mask)
    src_len = int(k.shape[2])
    mask = None
    if attn_mask is not None:   # (L, S) broadcasts; (N * H, L, S) -> (N, H, L, S)
        mask = attn_mask if attn_mask.ndim == 2 else \
            attn_mask.reshape((bsz, num_heads, tgt_len, src_len))
    if key_padding_mask is not None:
        kpm = key_padding_mask.reshape((bsz, 1, 1, src_len))
        mask = kpm if mask is None else mask + kpm
    if not training:
        dropout_p = 0.0
    weights = None
    if need_weights:  # the weights are wanted: attention with ops, as torch's math path
        scores = (q * (1.0 / math.sqrt(head_dim))) @ k.transpose(-2, -1)
        if mask is not None:
            scores = scores + mask
        weights = scores.softmax(-1)
        if dropout_p > 0.0:
            weights = dropout(weights, dropout_p, True)
        out = weights @ v                               # (N, H, L, head_dim)
    else:
        out = _attend(E, q, k, v, mask, 1.0 / math.sqrt(head_dim), dropout_p)
    joined = (bsz, tgt_len, embed_dim) if batch_first else (tgt_len, bsz, embed_dim)
    out = out.permute(*((0, 2, 1, 3) if batch_first else (2, 0, 1, 3))).reshape(joined)
    out = linear(out, out_proj_weight, out_proj_bias)
    if weights is None:
        return (out if batched else out.squeeze(1)), None
    if average_attn_weights:
        weights = weights.mean(1)
    if not batched:
        weights = weights.squeeze(0)
        out = out.squeeze(1)
    return out, weights


def _size(shape: Any) -> str:
    return "torch.Size([" + ", ".join(str(int(d)) for d in shape) + "])"


def _pad_last(E: Backend, mask: Any) -> Any:
    """A float mask with one more key column of zeros (a key that always takes part)."""
    if mask is None:
        return None
    pad = E.module.zeros(tuple(mask.shape[:-1]) + (1,), dtype=mask.dtype)
    return E.module.cat([mask, pad], -1)
