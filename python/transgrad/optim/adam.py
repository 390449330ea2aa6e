"""Adam (Kingma & Ba) with bias correction and optional AMSGrad (PyTorch's update rule,
``foreach=False`` path), as ``torch.optim.adam``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from transgrad.optim._validate import (
    check_betas,
    check_cpu_only,
    check_fused_foreach,
    check_nonnegative,
)
from transgrad.optim.optimizer import Optimizer

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam (Kingma & Ba) with bias correction; ``weight_decay`` is added to the gradient (L2),
    or decays the parameter (``decoupled_weight_decay``: AdamW's)."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: Any = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        check_nonnegative(lr=lr, eps=eps)
        check_betas(betas)
        check_nonnegative(weight_decay=weight_decay)
        check_fused_foreach(fused, foreach)
        check_cpu_only(type(self).__name__, capturable, differentiable)
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps,
                                  "weight_decay": weight_decay, "amsgrad": amsgrad,
                                  "maximize": maximize, "foreach": foreach,
                                  "capturable": capturable, "differentiable": differentiable,
                                  "fused": fused,
                                  "decoupled_weight_decay": decoupled_weight_decay})

    def _step_group(self, kernels: Any, g: dict[str, Any], params: list[Any],
                    grads: list[Any]) -> None:
        lr, (b1, b2), amsgrad = g["lr"], g["betas"], g["amsgrad"]
        exp_avgs, exp_avg_sqs, maxes, step_sizes, bc2_sqrts = [], [], [], [], []
        for p in params:
            state = self.state.setdefault(id(p), {})
            if not state:
                state["step"] = 0
                state["exp_avg"] = p.new_zeros(p.shape)
                state["exp_avg_sq"] = p.new_zeros(p.shape)
            if amsgrad and "max_exp_avg_sq" not in state:
                state["max_exp_avg_sq"] = p.new_zeros(p.shape)
            state["step"] += 1
            t = float(state["step"])
            # torch's scalars, in Python floats (its single-tensor step)
            step_sizes.append(lr / (1 - b1 ** t))
            bc2_sqrts.append((1 - b2 ** t) ** 0.5)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if amsgrad:
                maxes.append(state["max_exp_avg_sq"])
        kernels.adam_step_(params, grads, exp_avgs, exp_avg_sqs, maxes, step_sizes, bc2_sqrts,
                           lr, b1, b2, g["eps"], g["weight_decay"],
                           g.get("decoupled_weight_decay", False), amsgrad, g["maximize"])

    def _update(self, g: dict[str, Any], p: Any, grad: Any, state: dict[str, Any]) -> Any:
        lr, (b1, b2), eps, wd = g["lr"], g["betas"], g["eps"], g["weight_decay"]
        if wd != 0:
            if g.get("decoupled_weight_decay", False):
                p = p * (1.0 - lr * wd)
            else:
                grad = grad + p * wd
        t = state.get("step", 0) + 1
        state["step"] = t
        m = state.get("exp_avg")
        v = state.get("exp_avg_sq")
        m = grad * (1.0 - b1) if m is None else m * b1 + grad * (1.0 - b1)
        v = grad * grad * (1.0 - b2) if v is None else v * b2 + grad * grad * (1.0 - b2)
        state["exp_avg"], state["exp_avg_sq"] = m, v
        if g["amsgrad"]:
            vmax = state.get("max_exp_avg_sq")
            vmax = v if vmax is None else vmax.maximum(v)
            state["max_exp_avg_sq"] = vmax
            v = vmax
        bc1 = 1.0 - b1 ** t
        denom = v.sqrt() / math.sqrt(1.0 - b2 ** t) + eps
        return p - m / denom * (lr / bc1)
