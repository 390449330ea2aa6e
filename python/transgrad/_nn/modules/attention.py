"""Engine-neutral MultiheadAttention (torch.nn.MultiheadAttention, which torch keeps in
torch/nn/modules/activation.py; here a file of its own).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind the class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``). Parameter names, shapes and init are
torch's: ``in_proj_weight`` (3E, E) or ``q_proj_weight``/``k_proj_weight``/``v_proj_weight``
when kdim/vdim differ from E, ``in_proj_bias``, ``bias_k``/``bias_v``, ``out_proj.weight``,
``out_proj.bias``.
"""

from __future__ import annotations

import importlib
from typing import Any

from .. import init
from ..functional_attention import multi_head_attention
from ..module import Module, dtype_arg
from .linear import Linear


def bound_layer(module: Module, file: str, name: str) -> type:
    """The layer class ``name`` bound to ``module``'s engine (from ``<engine>.nn.modules.<file>``):
    how a layer makes its sub-layers on its own engine (Note [Which engine makes a layer's
    parameters] in ``transgrad/_nn/module.py``)."""
    return getattr(importlib.import_module(f"{module._E.name}.nn.modules.{file}"), name)


class NonDynamicallyQuantizableLinear(Linear):
    """torch's name for the output projection of MultiheadAttention (a plain Linear)."""


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of size ``embed_dim // num_heads``; inputs (L, N, E)
    (``batch_first``: (N, L, E)) or unbatched (L, E)."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        E = self._E
        m, dt = E.module, dtype_arg(E, dtype)
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = self.Parameter(m.empty(embed_dim, embed_dim, dtype=dt))
            self.k_proj_weight = self.Parameter(m.empty(embed_dim, self.kdim, dtype=dt))
            self.v_proj_weight = self.Parameter(m.empty(embed_dim, self.vdim, dtype=dt))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = self.Parameter(m.empty(3 * embed_dim, embed_dim, dtype=dt))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = self.Parameter(m.empty(3 * embed_dim, dtype=dt))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = bound_layer(self, "attention", "NonDynamicallyQuantizableLinear")(
            embed_dim, embed_dim, bias=bias, dtype=dt)
        if add_bias_kv:
            self.bias_k = self.Parameter(m.empty(1, 1, embed_dim, dtype=dt))
            self.bias_v = self.Parameter(m.empty(1, 1, embed_dim, dtype=dt))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query: Any, key: Any, value: Any, key_padding_mask: Any = None,
                need_weights: bool = True, attn_mask: Any = None,
                average_attn_weights: bool = True, is_causal: bool = False
                ) -> tuple[Any, Any]:
        # batch-first inputs are attended in their own layout, untransposed (Note [Attention in
        # the batch-first layout] in functional_attention.py)
        return multi_head_attention(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, self.training, key_padding_mask,
            need_weights, attn_mask, not self._qkv_same_embed_dim, self.q_proj_weight,
            self.k_proj_weight, self.v_proj_weight, None, None, average_attn_weights,
            is_causal, self.batch_first)
