"""``NAdam`` (Dozat, 2016: Adam with Nesterov momentum), as ``torch.optim.NAdam``.

Input: a parameter, its gradient (negated under ``maximize`` by the base class) and its
state. Output: the parameter's new value. State, per parameter: ``step``, ``mu_product`` (the
product of the momentum schedule so far), ``exp_avg`` and ``exp_avg_sq``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from transgrad.optim.optimizer import Optimizer

from ._adam_family import apply_weight_decay, update_moments
from ._validate import check_betas, check_cpu_only, check_nonnegative


class NAdam(Optimizer):
    """Adam whose first moment looks one step ahead, with the momentum schedule
    ``mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))``."""

    def __init__(self, params: Iterable[Any], lr: float = 2e-3, betas: Any = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_nonnegative(lr=lr, eps=eps)
        check_betas(betas)
        check_nonnegative(weight_decay=weight_decay, momentum_decay=momentum_decay)
        check_cpu_only("NAdam", capturable, differentiable)
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps,
                                  "weight_decay": weight_decay,
                                  "momentum_decay": momentum_decay,
                                  "decoupled_weight_decay": decoupled_weight_decay,
                                  "foreach": foreach, "maximize": maximize,
                                  "capturable": capturable, "differentiable": differentiable})

    def _update(self, g: dict[str, Any], p: Any, grad: Any, state: dict[str, Any]) -> Any:
        lr, (b1, b2) = g["lr"], g["betas"]
        p, grad = apply_weight_decay(g, p, grad)
        t, exp_avg, exp_avg_sq = update_moments(g, p, grad, state)
        mu = b1 * (1.0 - 0.5 * 0.96 ** (t * g["momentum_decay"]))
        mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * g["momentum_decay"]))
        mu_product = state.get("mu_product", 1.0) * mu
        state["mu_product"] = mu_product
        denom = exp_avg_sq.sqrt() / math.sqrt(1 - b2 ** t) + g["eps"]
        p = p - grad / denom * (lr * (1.0 - mu) / (1.0 - mu_product))
        return p - exp_avg / denom * (lr * mu_next / (1.0 - mu_product * mu_next))
