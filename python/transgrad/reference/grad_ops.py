"""The reference engine's own differentiable operations: summing a gradient down to its input's
shape, expanding it back, casting it to its input's dtype (the gradient contract of
docs/ARCHITECTURE.md, as ``grad_sum_to``/``grad_cast`` in csrc/autograd/function.cpp).

Input: a gradient tensor and the target shape or dtype. Output: the converted gradient, with a
node recorded when grad mode is on and the gradient requires grad (create_graph), so that any
order of derivative flows through the engine's own conversions. These never go through
``transgrad.lang`` or a formula: the engine owns them, as the C++ engine does.

Invariant: each node's backward is made of these operations only (sum_to <-> expand, cast ->
cast), so a double backward stays inside this module.
"""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from transgrad._dtypes import is_floating_or_complex
from transgrad.reference import kernels
from transgrad.reference.grad_mode import is_grad_enabled, no_grad
from transgrad.reference.node import Node, gradient_edge
from transgrad.reference.tensor import Tensor


class SumToBackward(Node):
    __slots__ = ("input_shape",)

    def __init__(self, g: Tensor) -> None:
        super().__init__([gradient_edge(g)])
        self.input_shape: Tuple[int, ...] = g.shape

    def name(self) -> str:
        return "SumBackward1"  # the node torch records for this operation

    def apply(self, grads: List[Any]) -> List[Any]:
        return [None if grads[0] is None else grad_expand(grads[0], self.input_shape)]


class ExpandBackward(Node):
    __slots__ = ("input_shape",)

    def __init__(self, g: Tensor) -> None:
        super().__init__([gradient_edge(g)])
        self.input_shape: Tuple[int, ...] = g.shape

    def name(self) -> str:
        return "ExpandBackward0"  # the node torch records for this operation

    def apply(self, grads: List[Any]) -> List[Any]:
        return [None if grads[0] is None else grad_sum_to(grads[0], self.input_shape)]


class CastBackward(Node):
    __slots__ = ("input_dtype",)

    def __init__(self, g: Tensor) -> None:
        super().__init__([gradient_edge(g)])
        self.input_dtype: np.dtype = g.dtype

    def name(self) -> str:
        return "ToCopyBackward0"  # the node torch records for this operation

    def apply(self, grads: List[Any]) -> List[Any]:
        return [None if grads[0] is None else grad_cast(grads[0], self.input_dtype)]


def _record(out: Tensor, node: Node) -> Tensor:
    out.grad_fn, out.output_nr = node, 0
    return out


def grad_sum_to(g: Tensor, shape: Tuple[int, ...]) -> Tensor:
    """``g`` summed down to ``shape`` (which broadcasts to ``g.shape``)."""
    with no_grad():
        out = kernels.sum_to(g, shape)
    if is_grad_enabled() and g.requires_grad:
        return _record(out, SumToBackward(g))
    return out


def grad_expand(g: Tensor, shape: Tuple[int, ...]) -> Tensor:
    """``g`` broadcast to ``shape`` (a view)."""
    with no_grad():
        out = kernels.expand(g, shape)
    if is_grad_enabled() and g.requires_grad:
        out = Tensor._view_of(out, out._data) if out is g else out
        return _record(out, ExpandBackward(g))
    return out


def grad_cast(g: Tensor, dtype: np.dtype) -> Tensor:
    """``g`` as ``dtype``; only a floating gradient records (an integer one has no derivative)."""
    if g.dtype == dtype:
        return g
    with no_grad():
        out = kernels.cast(g, dtype)
    if is_grad_enabled() and g.requires_grad and is_floating_or_complex(g.dtype):
        return _record(out, CastBackward(g))
    return out
