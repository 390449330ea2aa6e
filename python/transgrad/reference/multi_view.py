"""The reference engine's twin of csrc/autograd/multi_view.cpp: the views unbind/split/chunk
return, recorded as ONE node (Note [Several views, one node] in csrc/autograd/multi_view.h).

Input: a tensor, a dim, the sizes of the pieces, the kind ("unbind", "split",
"split_with_sizes"). Output: the views (the kernels' select/slice), each output ``i`` of one
node whose backward stacks (unbind) or concatenates (split) the grads, zeros where a grad is
None, with the differentiable ops (so create_graph records StackBackward0 / CatBackward0).
"""

from __future__ import annotations

from typing import Any, List, Sequence, Tuple

from transgrad._dtypes import is_floating_or_complex
from transgrad.reference import kernels
from transgrad.reference.grad_mode import is_grad_enabled, no_grad
from transgrad.reference.node import Node, gradient_edge
from transgrad.reference.tensor import Tensor

_NAMES = {"unbind": "UnbindBackward0", "split": "SplitBackward0",
          "split_with_sizes": "SplitWithSizesBackward0"}


class MultiViewBackward(Node):
    __slots__ = ("dim", "unbind", "node_name", "metas")

    def __init__(self, x: Tensor, dim: int, kind: str, outs: Sequence[Tensor]) -> None:
        super().__init__([gradient_edge(x)], max(len(outs), 1))
        self.dim, self.unbind, self.node_name = dim, kind == "unbind", _NAMES[kind]
        self.metas = [(tuple(o.shape), o.dtype) for o in outs]

    def name(self) -> str:
        return self.node_name

    def apply(self, grads: List[Any]) -> List[Any]:
        if all(g is None for g in grads):
            return [None]
        from transgrad.reference import ops

        parts = [g if g is not None else kernels.full(shape, 0.0, dtype)
                 for g, (shape, dtype) in zip(grads, self.metas)]
        return [ops.stack(parts, self.dim) if self.unbind else ops.cat(parts, self.dim)]


def views_along(x: Tensor, dim: int, sizes: Sequence[int], kind: str) -> Tuple[Tensor, ...]:
    """``x`` cut along ``dim`` (wrapped) into pieces of ``sizes`` (selects for "unbind", else
    slices)."""
    d = dim
    outs, start = [], 0
    with no_grad():
        for s in sizes:
            outs.append(kernels.select(x, d, start) if kind == "unbind"
                        else kernels.slice(x, d, start, start + s, 1))
            start += s
    if is_grad_enabled() and x.requires_grad:
        node = MultiViewBackward(x, d, kind, outs)
        for i, o in enumerate(outs):
            if is_floating_or_complex(o.dtype):
                o.grad_fn, o.output_nr = node, i
    return tuple(outs)
