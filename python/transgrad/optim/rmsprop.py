"""``RMSprop`` (Hinton's lecture 6e), as ``torch.optim.RMSprop``: engine-neutral update rule.

Input: a parameter, its gradient (already negated under ``maximize`` by the base class) and
its state. Output: the parameter's new value (the base writes it in place). State, per
parameter, as torch names it: ``step``, ``square_avg``, ``momentum_buffer`` (momentum > 0),
``grad_avg`` (centered).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from transgrad.optim.optimizer import Optimizer

from ._validate import check_cpu_only, check_nonnegative


class RMSprop(Optimizer):
    """Divides the gradient by a running root mean square of recent gradients."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0,
                 centered: bool = False, capturable: bool = False, foreach: bool | None = None,
                 maximize: bool = False, differentiable: bool = False) -> None:
        check_nonnegative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay,
                          alpha=alpha)
        check_cpu_only("RMSprop", capturable, differentiable)
        super().__init__(params, {"lr": lr, "alpha": alpha, "eps": eps,
                                  "weight_decay": weight_decay, "momentum": momentum,
                                  "centered": centered, "capturable": capturable,
                                  "foreach": foreach, "maximize": maximize,
                                  "differentiable": differentiable})

    def _step_group(self, kernels: Any, g: dict[str, Any], params: list[Any],
                    grads: list[Any]) -> None:
        square_avgs, grad_avgs, bufs = [], [], []
        for p in params:
            state = self.state.setdefault(id(p), {})
            if not state:
                state["step"] = 0
                state["square_avg"] = p.new_zeros(p.shape)
                if g["momentum"] > 0:
                    state["momentum_buffer"] = p.new_zeros(p.shape)
                if g["centered"]:
                    state["grad_avg"] = p.new_zeros(p.shape)
            state["step"] += 1
            square_avgs.append(state["square_avg"])
            if g["momentum"] > 0:
                bufs.append(state["momentum_buffer"])
            if g["centered"]:
                grad_avgs.append(state["grad_avg"])
        kernels.rmsprop_step_(params, grads, square_avgs, grad_avgs, bufs, g["lr"], g["alpha"],
                              g["eps"], g["weight_decay"], g["momentum"], g["centered"],
                              g["maximize"])

    def _update(self, g: dict[str, Any], p: Any, grad: Any, state: dict[str, Any]) -> Any:
        alpha, eps, momentum = g["alpha"], g["eps"], g["momentum"]
        if not state:
            state["step"] = 0
            state["square_avg"] = p.new_zeros(p.shape)
            if momentum > 0:
                state["momentum_buffer"] = p.new_zeros(p.shape)
            if g["centered"]:
                state["grad_avg"] = p.new_zeros(p.shape)
        state["step"] += 1
        if g["weight_decay"] != 0:
            grad = grad + p * g["weight_decay"]
        square_avg = state["square_avg"] * alpha + grad * grad * (1 - alpha)
        state["square_avg"] = square_avg
        if g["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg = grad_avg + (grad - grad_avg) * (1 - alpha)
            state["grad_avg"] = grad_avg
            avg = (square_avg - grad_avg * grad_avg).sqrt() + eps
        else:
            avg = square_avg.sqrt() + eps
        if momentum > 0:
            buf = state["momentum_buffer"] * momentum + grad / avg
            state["momentum_buffer"] = buf
            return p - buf * g["lr"]
        return p - grad / avg * g["lr"]
