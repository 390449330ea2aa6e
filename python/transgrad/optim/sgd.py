"""SGD: momentum, dampening, Nesterov, weight decay (PyTorch's update rule,
``foreach=False`` path), as ``torch.optim.sgd``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from transgrad.optim.optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """``p -= lr * d`` with ``d = grad + wd * p``, through a momentum buffer when momentum > 0."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
                 maximize: bool = False) -> None:
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError(f"SGD: invalid lr={lr}, momentum={momentum} or "
                             f"weight_decay={weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("SGD: Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                      "weight_decay": weight_decay, "nesterov": nesterov,
                                      "maximize": maximize})

    def _update(self, g: dict[str, Any], p: Any, grad: Any, state: dict[str, Any]) -> Any:
        d = grad if g["weight_decay"] == 0 else grad + p * g["weight_decay"]
        if g["momentum"] != 0:
            buf = state.get("momentum_buffer")
            buf = d if buf is None else buf * g["momentum"] + d * (1.0 - g["dampening"])
            state["momentum_buffer"] = buf
            d = d + buf * g["momentum"] if g["nesterov"] else buf
        return p - d * g["lr"]
