"""Adam (Kingma & Ba) with bias correction and optional AMSGrad (PyTorch's update rule,
``foreach=False`` path), as ``torch.optim.adam``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from transgrad.optim.optimizer import Optimizer

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam (Kingma & Ba) with bias correction; ``weight_decay`` is added to the gradient (L2)."""

    _decoupled = False

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: Any = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, amsgrad: bool = False,
                 maximize: bool = False) -> None:
        if lr < 0 or eps < 0 or weight_decay < 0 or not all(0.0 <= b < 1.0 for b in betas):
            raise ValueError(f"{type(self).__name__}: invalid lr={lr}, betas={betas}, eps={eps} "
                             f"or weight_decay={weight_decay}")
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps,
                                      "weight_decay": weight_decay, "amsgrad": amsgrad,
                                      "maximize": maximize})

    def _update(self, g: dict[str, Any], p: Any, grad: Any, state: dict[str, Any]) -> Any:
        lr, (b1, b2), eps, wd = g["lr"], g["betas"], g["eps"], g["weight_decay"]
        if wd != 0:
            if self._decoupled:
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
