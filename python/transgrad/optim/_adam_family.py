"""The bookkeeping NAdam and RAdam share with Adam: weight decay and the two moments.

Input: a parameter group, a parameter, its gradient and its state dict. Output: the decayed
parameter and gradient, and the updated moments, with the state written back under torch's
names (``step``, ``exp_avg``, ``exp_avg_sq``). The moments start at zero, as torch's.
"""

from __future__ import annotations

from typing import Any


def apply_weight_decay(g: dict[str, Any], p: Any, grad: Any) -> tuple[Any, Any]:
    """``(p, grad)`` after weight decay: ``p *= 1 - lr * wd`` when decoupled (AdamW's),
    else ``grad += wd * p`` (L2)."""
    wd = g["weight_decay"]
    if wd == 0:
        return p, grad
    if g.get("decoupled_weight_decay", False):
        return p * (1 - g["lr"] * wd), grad
    return p, grad + p * wd


def update_moments(g: dict[str, Any], p: Any, grad: Any,
                   state: dict[str, Any]) -> tuple[int, Any, Any]:
    """Advance ``step`` and the running means of the gradient and of its square; returns
    ``(step, exp_avg, exp_avg_sq)``."""
    b1, b2 = g["betas"]
    if "exp_avg" not in state:
        state["step"] = 0
        state["exp_avg"] = p.new_zeros(p.shape)
        state["exp_avg_sq"] = p.new_zeros(p.shape)
    state["step"] += 1
    exp_avg = state["exp_avg"] + (grad - state["exp_avg"]) * (1 - b1)
    exp_avg_sq = state["exp_avg_sq"] * b2 + grad * grad * (1 - b2)
    state["exp_avg"], state["exp_avg_sq"] = exp_avg, exp_avg_sq
    return state["step"], exp_avg, exp_avg_sq
