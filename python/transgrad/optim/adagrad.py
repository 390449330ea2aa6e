"""``Adagrad`` (Duchi et al., 2011), as ``torch.optim.Adagrad``: engine-neutral update rule.

Input: a parameter, its gradient (negated under ``maximize`` by the base class) and its
state. Output: the parameter's new value. State, per parameter: ``step`` and ``sum`` (the
accumulated squared gradients, starting at ``initial_accumulator_value``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from transgrad.optim.optimizer import Optimizer

from ._validate import check_cpu_only, check_fused_foreach, check_nonnegative


class Adagrad(Optimizer):
    """Per-coordinate step ``lr / (sqrt(sum of squared gradients) + eps)``, with lr decay."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        check_nonnegative(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                          initial_accumulator_value=initial_accumulator_value, eps=eps)
        check_fused_foreach(fused, foreach)
        check_cpu_only("Adagrad", differentiable=differentiable)
        super().__init__(params, {"lr": lr, "lr_decay": lr_decay, "eps": eps,
                                  "weight_decay": weight_decay,
                                  "initial_accumulator_value": initial_accumulator_value,
                                  "foreach": foreach, "maximize": maximize,
                                  "differentiable": differentiable, "fused": fused})

    def _step_group(self, kernels: Any, g: dict[str, Any], params: list[Any],
                    grads: list[Any]) -> None:
        sums, clrs = [], []
        for p in params:
            state = self.state.setdefault(id(p), {})
            if not state:
                state["step"] = 0
                state["sum"] = p.new_full(p.shape, g["initial_accumulator_value"])
            state["step"] += 1
            clrs.append(g["lr"] / (1 + (float(state["step"]) - 1) * g["lr_decay"]))
            sums.append(state["sum"])
        kernels.adagrad_step_(params, grads, sums, clrs, g["weight_decay"], g["eps"],
                              g["maximize"])

    def _update(self, g: dict[str, Any], p: Any, grad: Any, state: dict[str, Any]) -> Any:
        if not state:
            state["step"] = 0
            state["sum"] = p.new_full(p.shape, g["initial_accumulator_value"])
        state["step"] += 1
        if g["weight_decay"] != 0:
            grad = grad + p * g["weight_decay"]
        clr = g["lr"] / (1 + (state["step"] - 1) * g["lr_decay"])
        total = state["sum"] + grad * grad
        state["sum"] = total
        return p - grad / (total.sqrt() + g["eps"]) * clr
