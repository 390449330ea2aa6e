"""Engine-neutral transformer layers (torch.nn.modules.transformer): ``TransformerEncoderLayer``,
``TransformerEncoder``, ``TransformerDecoderLayer``, ``TransformerDecoder``, ``Transformer``.

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``); sub-layers are made with the classes of the
same engine (``bound_layer``). Sub-module names and order are torch's (``self_attn``,
``linear1``, ``dropout``, ``linear2``, ``norm1``, ...), so state dicts move between the two.

torch's inference fast paths (nested tensors, fused kernels) compute the same values except
that, in eval mode with ``src_key_padding_mask``, torch's encoder may return zeros at padded
positions; here padded positions always hold the layer's ordinary output.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from transgrad._backend import backend_named

from .. import functional as F
from .. import init
from ..module import Module
from .attention import bound_layer


def _activation(activation: str | Callable[[Any], Any]) -> Callable[[Any], Any]:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    if isinstance(activation, str):
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return activation


def _clones(module: Module, n: int, owner: Module) -> Module:
    return bound_layer(owner, "container", "ModuleList")([copy.deepcopy(module)
                                                          for _ in range(n)])


def _causal(mask: Any, is_causal: bool | None) -> bool:
    """torch's ``is_causal`` hint: the mask decides; the flag only says it is causal."""
    return bool(is_causal) and mask is not None


class _Sublayers(Module):
    """What both layer kinds make the same way: attention, feed-forward, norms, dropouts."""

    def _make(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float,
              activation: Any, layer_norm_eps: float, batch_first: bool, norm_first: bool,
              bias: bool, dtype: Any, norms: int, cross: bool) -> None:
        mha = bound_layer(self, "attention", "MultiheadAttention")
        linear = bound_layer(self, "linear", "Linear")
        drop = bound_layer(self, "dropout", "Dropout")
        norm = bound_layer(self, "normalization", "LayerNorm")
        self.self_attn = mha(d_model, nhead, dropout=dropout, bias=bias,
                             batch_first=batch_first, dtype=dtype)
        if cross:
            self.multihead_attn = mha(d_model, nhead, dropout=dropout, bias=bias,
                                      batch_first=batch_first, dtype=dtype)
        self.linear1 = linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = drop(dropout)
        self.linear2 = linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        for k in range(1, norms + 1):
            setattr(self, f"norm{k}", norm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        for k in range(1, norms + 1):
            setattr(self, f"dropout{k}", drop(dropout))
        self.activation = _activation(activation)

    def _sa_block(self, x: Any, attn_mask: Any, key_padding_mask: Any, is_causal: bool) -> Any:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Any, dropout_out: Module) -> Any:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return dropout_out(x)


class TransformerEncoderLayer(_Sublayers):
    """Self-attention then feed-forward, each with a residual and a LayerNorm (after each
    block, or before with ``norm_first``)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: Any = "relu", layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self._make(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                   batch_first, norm_first, bias, dtype, norms=2, cross=False)

    def forward(self, src: Any, src_mask: Any = None, src_key_padding_mask: Any = None,
                is_causal: bool = False) -> Any:
        x = src
        causal = _causal(src_mask, is_causal)
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, causal)
            x = x + self._ff_block(self.norm2(x), self.dropout2)
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, causal))
            x = self.norm2(x + self._ff_block(x, self.dropout2))
        return x


class TransformerDecoderLayer(_Sublayers):
    """Self-attention, attention over the encoder's ``memory``, then feed-forward, each with a
    residual and a LayerNorm."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: Any = "relu", layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self._make(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                   batch_first, norm_first, bias, dtype, norms=3, cross=True)

    def _mha_block(self, x: Any, mem: Any, attn_mask: Any, key_padding_mask: Any,
                   is_causal: bool) -> Any:
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, need_weights=False,
                                is_causal=is_causal)[0]
        return self.dropout2(x)

    def forward(self, tgt: Any, memory: Any, tgt_mask: Any = None, memory_mask: Any = None,
                tgt_key_padding_mask: Any = None, memory_key_padding_mask: Any = None,
                tgt_is_causal: bool = False, memory_is_causal: bool = False) -> Any:
        x = tgt
        t_causal = _causal(tgt_mask, tgt_is_causal)
        m_causal = _causal(memory_mask, memory_is_causal)
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, t_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, m_causal)
            x = x + self._ff_block(self.norm3(x), self.dropout3)
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, t_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                               m_causal))
            x = self.norm3(x + self._ff_block(x, self.dropout3))
        return x


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` (deep copies, as torch), then ``norm``."""

    def __init__(self, encoder_layer: Module, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers: Any = _clones(encoder_layer, num_layers, self)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check

    def forward(self, src: Any, mask: Any = None, src_key_padding_mask: Any = None,
                is_causal: bool | None = None) -> Any:
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                      is_causal=_causal(mask, is_causal))
        return self.norm(x) if self.norm is not None else x


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer``, then ``norm``."""

    def __init__(self, decoder_layer: Module, num_layers: int,
                 norm: Module | None = None) -> None:
        super().__init__()
        self.layers: Any = _clones(decoder_layer, num_layers, self)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Any, memory: Any, tgt_mask: Any = None, memory_mask: Any = None,
                tgt_key_padding_mask: Any = None, memory_key_padding_mask: Any = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Any:
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask,
                      memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=_causal(tgt_mask, tgt_is_causal),
                      memory_is_causal=memory_is_causal)
        return self.norm(x) if self.norm is not None else x


class Transformer(Module):
    """The encoder-decoder of "Attention Is All You Need": an encoder and a decoder stack, each
    followed by a LayerNorm; every weight matrix initialised xavier-uniform as torch."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Any = "relu", custom_encoder: Any = None,
                 custom_decoder: Any = None, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        norm = bound_layer(self, "normalization", "LayerNorm")
        common = dict(dim_feedforward=dim_feedforward, dropout=dropout, activation=activation,
                      layer_norm_eps=layer_norm_eps, batch_first=batch_first,
                      norm_first=norm_first, bias=bias, dtype=dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = bound_layer(self, "transformer", "TransformerEncoderLayer")(
                d_model, nhead, **common)
            self.encoder = bound_layer(self, "transformer", "TransformerEncoder")(
                layer, num_encoder_layers, norm(d_model, eps=layer_norm_eps, bias=bias,
                                                dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = bound_layer(self, "transformer", "TransformerDecoderLayer")(
                d_model, nhead, **common)
            self.decoder = bound_layer(self, "transformer", "TransformerDecoder")(
                layer, num_decoder_layers, norm(d_model, eps=layer_norm_eps, bias=bias,
                                                dtype=dtype))
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src: Any, tgt: Any, src_mask: Any = None, tgt_mask: Any = None,
                memory_mask: Any = None, src_key_padding_mask: Any = None,
                tgt_key_padding_mask: Any = None, memory_key_padding_mask: Any = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Any:
        is_batched = src.ndim == 3
        if not self.batch_first and src.shape[1] != tgt.shape[1] and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if self.batch_first and src.shape[0] != tgt.shape[0] and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @classmethod
    def generate_square_subsequent_mask(cls, sz: int, device: Any = None,
                                        dtype: Any = None) -> Any:
        """A float (sz, sz) mask: -inf above the diagonal, 0 on and below (a query sees
        itself and earlier keys), a tensor of the class's engine (torch's is a staticmethod;
        a classmethod here so that the bound class knows which engine to use)."""
        m = backend_named(cls._engine or "transgrad").module
        dt = dtype if dtype is not None else m.get_default_dtype()
        return m.triu(m.full((sz, sz), float("-inf"), dtype=dt), 1)
