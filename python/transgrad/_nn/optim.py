"""optim, engine-neutral: SGD (momentum, dampening, Nesterov, weight decay), Adam, AdamW.

The update rules are PyTorch's (``torch.optim``, default ``foreach=False`` paths), computed with
the engine's own tensor ops under ``no_grad`` and written into each Parameter in place
(``Engine.assign_``), so the Parameter objects and any references to them stay valid.
State (momentum buffers, moments) is held as engine tensors, per parameter.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any


class Optimizer:
    """Parameter groups, per-parameter state, ``zero_grad`` and ``step``."""

    _E: Any = None  # the Engine adapter (set on the per-engine subclass)

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = dict(defaults)
        self.state: dict[int, dict[str, Any]] = {}
        self.param_groups: list[dict[str, Any]] = []
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, group: dict[str, Any]) -> None:
        group = dict(group)
        group["params"] = list(group["params"])
        for k, v in self.defaults.items():
            group.setdefault(k, v)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        for p in group["params"]:
            if id(p) in seen:
                raise ValueError("a parameter appears in more than one parameter group")
            if not getattr(p, "is_leaf", True):
                raise ValueError("optimizers can only update leaf tensors (Parameters)")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        E = self._E
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    E.assign_(p.grad, p.grad.detach() * 0.0)

    def step(self) -> None:
        E = self._E
        with E.no_grad():
            for g in self.param_groups:
                for p in g["params"]:
                    if p.grad is None:
                        continue
                    grad = p.grad.detach()
                    if g.get("maximize", False):
                        grad = -grad
                    state = self.state.setdefault(id(p), {})
                    E.assign_(p, self._update(g, p.detach(), grad, state))

    def _update(self, group: dict[str, Any], p: Any, grad: Any, state: dict[str, Any]) -> Any:
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        """State keyed by the parameter's position (as torch), groups without the params."""
        index: dict[int, int] = {}
        groups = []
        for g in self.param_groups:
            ids = []
            for p in g["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            groups.append({**{k: v for k, v in g.items() if k != "params"}, "params": ids})
        state = {index[k]: dict(v) for k, v in self.state.items() if k in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups) or any(
                len(a["params"]) != len(b["params"]) for a, b in zip(groups, self.param_groups)):
            raise ValueError("load_state_dict: the saved parameter groups do not match this "
                             "optimizer's")
        params = [p for g in self.param_groups for p in g["params"]]
        self.state = {id(params[i]): dict(s) for i, s in state_dict["state"].items()}
        for saved, g in zip(groups, self.param_groups):
            g.update({k: v for k, v in saved.items() if k != "params"})

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {v}" for k, v in sorted(g.items()) if k != "params"]
        return "\n".join(lines + [")"])


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
            vmax = v if vmax is None else self._E.op("maximum")(vmax, v)
            state["max_exp_avg_sq"] = vmax
            v = vmax
        bc1 = 1.0 - b1 ** t
        denom = v.sqrt() / math.sqrt(1.0 - b2 ** t) + eps
        return p - m / denom * (lr / bc1)


class AdamW(Adam):
    """Adam with decoupled weight decay: ``p *= 1 - lr * wd`` before the Adam step."""

    _decoupled = True

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: Any = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False,
                 maximize: bool = False) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)


OPTIMIZERS = (Optimizer, SGD, Adam, AdamW)
