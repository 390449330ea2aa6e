"""``RAdam`` (Liu et al., 2019: Adam with a rectified variance), as ``torch.optim.RAdam``.

Input: a parameter, its gradient (negated under ``maximize`` by the base class) and its
state. Output: the parameter's new value. State, per parameter: ``step``, ``exp_avg`` and
``exp_avg_sq``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from transgrad.optim.optimizer import Optimizer

from ._adam_family import apply_weight_decay, update_moments
from ._validate import check_betas, check_cpu_only, check_nonnegative


class RAdam(Optimizer):
    """Adam whose adaptive step is switched on (and rectified) once the variance of the
    adaptive learning rate is tractable (``rho_t > 5``); before, plain bias-corrected
    momentum SGD."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: Any = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_nonnegative(lr=lr, eps=eps)
        check_betas(betas)
        check_nonnegative(weight_decay=weight_decay)
        check_cpu_only("RAdam", capturable, differentiable)
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps,
                                  "weight_decay": weight_decay,
                                  "decoupled_weight_decay": decoupled_weight_decay,
                                  "foreach": foreach, "maximize": maximize,
                                  "capturable": capturable, "differentiable": differentiable})

    def _update(self, g: dict[str, Any], p: Any, grad: Any, state: dict[str, Any]) -> Any:
        lr, (b1, b2) = g["lr"], g["betas"]
        p, grad = apply_weight_decay(g, p, grad)
        t, exp_avg, exp_avg_sq = update_moments(g, p, grad, state)
        bias_correction1 = 1 - b1 ** t
        bias_correction2 = 1 - b2 ** t
        step = exp_avg * (lr / bias_correction1)
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * b2 ** t / bias_correction2
        if rho_t <= 5.0:
            return p - step
        rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                         / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
        return p - step * (math.sqrt(bias_correction2) * rect) / (exp_avg_sq.sqrt() + g["eps"])
