"""``Adadelta`` (Zeiler, 2012), as ``torch.optim.Adadelta``: engine-neutral update rule.

Input: a parameter, its gradient (negated under ``maximize`` by the base class) and its
state. Output: the parameter's new value. State, per parameter: ``step``, ``square_avg``
(running mean of squared gradients) and ``acc_delta`` (running mean of squared updates).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from transgrad.optim.optimizer import Optimizer

from ._validate import check_cpu_only, check_nonnegative


class Adadelta(Optimizer):
    """Step ``sqrt(acc_delta + eps) / sqrt(square_avg + eps) * grad``, scaled by ``lr``."""

    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9,
                 eps: float = 1e-6, weight_decay: float = 0, foreach: bool | None = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_nonnegative(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonnegative(eps=eps, weight_decay=weight_decay)
        check_cpu_only("Adadelta", capturable, differentiable)
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps,
                                  "weight_decay": weight_decay, "foreach": foreach,
                                  "capturable": capturable, "maximize": maximize,
                                  "differentiable": differentiable})

    def _update(self, g: dict[str, Any], p: Any, grad: Any, state: dict[str, Any]) -> Any:
        rho, eps = g["rho"], g["eps"]
        if not state:
            state["step"] = 0
            state["square_avg"] = p.new_zeros(p.shape)
            state["acc_delta"] = p.new_zeros(p.shape)
        state["step"] += 1
        if g["weight_decay"] != 0:
            grad = grad + p * g["weight_decay"]
        square_avg = state["square_avg"] * rho + grad * grad * (1 - rho)
        delta = (state["acc_delta"] + eps).sqrt() / (square_avg + eps).sqrt() * grad
        state["square_avg"] = square_avg
        state["acc_delta"] = state["acc_delta"] * rho + delta * delta * (1 - rho)
        return p - delta * g["lr"]
