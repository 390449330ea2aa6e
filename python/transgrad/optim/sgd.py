"""SGD: momentum, dampening, Nesterov, weight decay (PyTorch's update rule,
``foreach=False`` path), as ``torch.optim.sgd``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from transgrad.optim._validate import check_cpu_only, check_fused_foreach, check_nonnegative
from transgrad.optim.optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """``p -= lr * d`` with ``d = grad + wd * p``, through a momentum buffer when momentum > 0."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        check_nonnegative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        check_fused_foreach(fused, foreach)
        check_cpu_only("SGD", differentiable=differentiable)
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov,
                                  "maximize": maximize, "foreach": foreach,
                                  "differentiable": differentiable, "fused": fused})

    def _step_group(self, kernels: Any, g: dict[str, Any], params: list[Any],
                    grads: list[Any]) -> None:
        bufs, first = [], []
        if g["momentum"] != 0:
            for p in params:
                state = self.state.setdefault(id(p), {})
                buf = state.get("momentum_buffer")
                first.append(buf is None)
                if buf is None:  # torch starts it at the first step's direction
                    buf = state["momentum_buffer"] = p.new_zeros(p.shape)
                bufs.append(buf)
        kernels.sgd_step_(params, grads, bufs, first, g["lr"], g["momentum"], g["dampening"],
                          g["weight_decay"], g["nesterov"], g["maximize"])

    def _update(self, g: dict[str, Any], p: Any, grad: Any, state: dict[str, Any]) -> Any:
        d = grad if g["weight_decay"] == 0 else grad + p * g["weight_decay"]
        if g["momentum"] != 0:
            buf = state.get("momentum_buffer")
            buf = d if buf is None else buf * g["momentum"] + d * (1.0 - g["dampening"])
            state["momentum_buffer"] = buf
            d = d + buf * g["momentum"] if g["nesterov"] else buf
        return p - d * g["lr"]
