"""The optimizer base class: parameter groups, per-parameter state, ``zero_grad``, ``step``,
``state_dict`` (``torch.optim.optimizer.Optimizer``).

Input: parameters (leaf tensors of either engine) and defaults. Output: ``step()`` writes each
parameter's new value (``_update``, defined by the subclass) into it in place under no_grad, so
the Parameter objects and every reference to them stay valid; the version counter is bumped,
so a graph that saved the old value refuses to run backward.

Invariant: engine-neutral. The engine is found from each parameter (``backend_of``), never set
on the class, so an optimizer written once (SGD, Adam, a user's) works on both engines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Optional

from transgrad._backend import backend_of
from transgrad._dtypes import float32, float64

__all__ = ["Optimizer"]


_KERNEL_DTYPES = (float32, float64)


def _kernel_dtype(p: Any) -> bool:
    """float32 or float64: the dtypes of the multi-tensor kernels."""
    return p.dtype in _KERNEL_DTYPES


# Note [Fused optimizer steps]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# An optimizer step over a model is a few arithmetic operations on every element of every
# parameter; run as tensor ops from Python it costs ~10 dispatches per parameter per step,
# which for a model of many small tensors dominates. SGD, Adam/AdamW, RMSprop and Adagrad
# therefore hand a whole parameter group to one kernel of the engine (``backend.optim``:
# csrc/kernels/optim.cpp compiled, transgrad/reference/optim_kernels.py in numpy), which loops
# over the parameters and elements, writes in place and bumps the versions. The kernels follow
# torch's single-tensor order of operations (its CPU default, ``foreach=False``): SGD's
# trajectory matches torch's bit for bit, the steps with a square root to the rounding of an
# update (torch's sqrt is MKL's; Note [Optimizer steps in torch's order] in optim.cpp).
# ``foreach`` and ``fused`` are accepted (torch's defaults) and all run this kernel. The state
# (``exp_avg``, ``momentum_buffer``, ...) is created on a parameter's first step as torch names
# it, so a state dict moves between the two.


class Optimizer:
    """Parameter groups, per-parameter state, ``zero_grad`` and ``step``.

    A subclass implements ``_update(self, group, p, grad, state) -> new value of p`` with tensor
    methods and operators only (``p`` and ``grad`` detached, run under no_grad); the base writes
    the value into the Parameter in place. It may also implement ``_step_group`` (Note [Fused
    optimizer steps]), used for float32/float64 groups. The engine is the parameters' own
    (``backend_of(p)``): one class serves both engines."""

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
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    with backend_of(p).autograd.no_grad():
                        p.grad.zero_()

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """One update of every parameter that has a gradient; returns ``closure()``'s loss.

        A group whose parameters are all float32/float64 goes to the subclass's multi-tensor
        step (``_step_group``: one call into the engine's ``optim`` kernels per group, Note
        [Fused optimizer steps]); any other group, or an optimizer without one, runs
        ``_update`` per parameter."""
        loss = None
        if closure is not None:
            first = next(p for g in self.param_groups for p in g["params"])
            with backend_of(first).autograd.enable_grad():
                loss = closure()
        for g in self.param_groups:
            params = [p for p in g["params"] if p.grad is not None]
            if not params:
                continue
            backend = backend_of(params[0])
            with backend.autograd.no_grad():
                if self._fusable(params):
                    grads = [p.grad.detach().contiguous() for p in params]
                    self._step_group(backend.optim, g, params, grads)
                    continue
                for p in params:
                    grad = p.grad.detach()
                    if g.get("maximize", False):
                        grad = -grad
                    state = self.state.setdefault(id(p), {})
                    # in place: the Parameter object (held by the model) stays the same
                    p.copy_(self._update(g, p.detach(), grad, state))
        return loss

    def _fusable(self, params: list[Any]) -> bool:
        """Whether ``_step_group`` can take these parameters: it exists, and every parameter
        and gradient is float32 or float64 (the kernels' dtypes) and contiguous (the kernels walk
        flat memory; a transposed parameter takes the per-parameter path), of one engine."""
        if type(self)._step_group is Optimizer._step_group:
            return False
        backend = backend_of(params[0])
        return all(backend_of(p) is backend and _kernel_dtype(p) and
                   p.grad.dtype == p.dtype and p.is_contiguous() and p.grad.is_contiguous()
                   for p in params)

    def _step_group(self, kernels: Any, group: dict[str, Any], params: list[Any],
                    grads: list[Any]) -> None:
        """Update ``params`` in place through ``kernels`` (the engine's ``optim``), creating
        the state on a parameter's first step; optional in a subclass."""
        raise NotImplementedError

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
