"""``Adamax`` (Adam with the infinity norm, Kingma & Ba §7), as ``torch.optim.Adamax``.

Input: a parameter, its gradient (negated under ``maximize`` by the base class) and its
state. Output: the parameter's new value. State, per parameter: ``step``, ``exp_avg`` (first
moment) and ``exp_inf`` (exponentially weighted infinity norm).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from transgrad.optim.optimizer import Optimizer

from ._validate import check_betas, check_cpu_only, check_nonnegative


class Adamax(Optimizer):
    """Step ``lr / (1 - beta1**t) * exp_avg / exp_inf``, ``exp_inf`` a decayed running max."""

    def __init__(self, params: Iterable[Any], lr: float = 2e-3, betas: Any = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        check_nonnegative(lr=lr, eps=eps)
        check_betas(betas)
        check_nonnegative(weight_decay=weight_decay)
        check_cpu_only("Adamax", capturable, differentiable)
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps,
                                  "weight_decay": weight_decay, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    def _update(self, g: dict[str, Any], p: Any, grad: Any, state: dict[str, Any]) -> Any:
        b1, b2 = g["betas"]
        if not state:
            state["step"] = 0
            state["exp_avg"] = p.new_zeros(p.shape)
            state["exp_inf"] = p.new_zeros(p.shape)
        state["step"] += 1
        if g["weight_decay"] != 0:
            grad = grad + p * g["weight_decay"]
        exp_avg = state["exp_avg"] + (grad - state["exp_avg"]) * (1 - b1)
        exp_inf = (state["exp_inf"] * b2).maximum(grad.abs() + g["eps"])
        state["exp_avg"], state["exp_inf"] = exp_avg, exp_inf
        clr = g["lr"] / (1 - b1 ** state["step"])
        return p - exp_avg / exp_inf * clr
