"""Stochastic weight averaging and exponential moving averages of a model
(torch.optim.swa_utils), engine-neutral: ``SWALR``, ``update_bn``, the averaging functions
and ``_AveragedModel``.

The functions and ``SWALR`` take their engine from the tensors; ``_AveragedModel`` is a Module,
so each engine binds it as ``AveragedModel`` in its ``optim/swa_utils.py``
(``transgrad.optim.swa_utils`` and ``transgrad.reference.optim.swa_utils``: Note [Which engine
makes a layer's parameters] in transgrad/_nn/module.py); either one, given a model of the other
engine, makes the other's. This file imports no engine, so ``transgrad.reference`` works without
the compiled one.
"""

from __future__ import annotations

import copy
import importlib
import itertools
import math
import warnings
from typing import Any

from transgrad._backend import backend_of
from transgrad._nn import module as _module
from transgrad._nn.modules.batchnorm import _BatchNorm
from transgrad.optim.lr_scheduler import LRScheduler, _attributes, _format_param

__all__ = ["SWALR", "get_ema_avg_fn", "get_ema_multi_avg_fn",
           "get_swa_avg_fn", "get_swa_multi_avg_fn", "update_bn"]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def _lerp_(start: Any, end: Any, weight: float) -> None:
    """``start += weight * (end - start)`` in place, by torch's lerp (the form that is exact at
    ``weight`` 0 and 1)."""
    E = backend_of(start)
    with E.no_grad():
        if weight < 0.5:
            start.copy_(start + (end - start) * weight)
        else:
            start.copy_(end - (end - start) * (1.0 - weight))


def get_ema_multi_avg_fn(decay: float = 0.999) -> Any:
    """``update(ema_params, current_params, num_averaged)``: each ema parameter moves
    ``1 - decay`` of the way to the current one."""
    _check_decay(decay)

    def ema_update(ema_param_list: list, current_param_list: list, _: Any) -> None:
        for p_ema, p_model in zip(ema_param_list, current_param_list):
            if p_ema.is_floating_point() or p_ema.dtype.is_complex:
                _lerp_(p_ema, p_model, 1.0 - decay)
            else:
                with backend_of(p_ema).no_grad():
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Any:
    """``update(averaged_params, current_params, num_averaged)``: the running mean over
    ``num_averaged + 1`` models."""

    def swa_update(averaged_param_list: list, current_param_list: list,
                   num_averaged: Any) -> None:
        n = float(num_averaged)
        for p_avg, p_model in zip(averaged_param_list, current_param_list):
            if p_avg.is_floating_point() or p_avg.dtype.is_complex:
                _lerp_(p_avg, p_model, 1.0 / (n + 1.0))
            else:
                with backend_of(p_avg).no_grad():
                    p_avg.copy_(p_avg + (p_model - p_avg) / (n + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Any:
    """``avg(ema_param, current_param, num_averaged)``: the new ema value of one tensor."""
    _check_decay(decay)

    def ema_update(ema_param: Any, current_param: Any, num_averaged: Any) -> Any:
        with backend_of(ema_param).no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Any:
    """``avg(averaged_param, current_param, num_averaged)``: the new running mean of one
    tensor."""

    def swa_update(averaged_param: Any, current_param: Any, num_averaged: Any) -> Any:
        with backend_of(averaged_param).no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class _AveragedModel(_module.Module):
    """A deep copy of ``model`` (``self.module``) whose parameters (and buffers with
    ``use_buffers``) ``update_parameters(model)`` averages with the model's: the running mean
    (SWA) by default, or ``avg_fn``/``multi_avg_fn`` (e.g. ``get_ema_multi_avg_fn(decay)``);
    ``n_averaged`` (an int64 buffer) counts the updates. ``forward`` is the copy's."""

    def __new__(cls, model: Any, *args: Any, **kwargs: Any) -> Any:
        engine = getattr(model, "_engine", None)
        if engine is not None and cls._engine is not None and engine != cls._engine:
            other = importlib.import_module(f"{engine}.optim.swa_utils").AveragedModel
            obj = object.__new__(other)
            obj.__init__(model, *args, **kwargs)  # not an instance of cls: run by hand
            return obj
        return object.__new__(cls)

    def __init__(self, model: Any, device: Any = None, avg_fn: Any = None,
                 multi_avg_fn: Any = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        m = self._E.module
        self.register_buffer("n_averaged", m.tensor(0, dtype=m.int64))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Any) -> None:
        """Average ``model``'s current parameters into this copy (the first call copies
        them)."""
        E = self._E
        if self.use_buffers:
            self_params = list(itertools.chain(self.module.parameters(), self.module.buffers()))
            model_params = list(itertools.chain(model.parameters(), model.buffers()))
        else:
            self_params, model_params = list(self.parameters()), list(model.parameters())
        averaged = [p.detach() for p in self_params]
        current = [p.detach() for p in model_params]
        n = int(self.n_averaged.item())
        with E.no_grad():
            if n == 0:
                for p_avg, p_model in zip(averaged, current):
                    p_avg.copy_(p_model)
            elif self.avg_fn is None:
                (self.multi_avg_fn or get_swa_multi_avg_fn())(averaged, current,
                                                               self.n_averaged.clone())
            else:
                for p_avg, p_model in zip(averaged, current):
                    p_avg.copy_(self.avg_fn(p_avg, p_model, self.n_averaged.clone()))
            if not self.use_buffers:
                # without averaging, the buffers follow the source model's
                for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                    b_swa.copy_(b_model.detach())
            self.n_averaged.copy_(self.n_averaged + 1)


def update_bn(loader: Any, model: Any, device: Any = None) -> None:
    """Recompute the running statistics of every batch norm of ``model`` as the cumulative
    average over one pass of ``loader`` (batches, or tuples whose first item is the input),
    with gradients off; the model's mode is restored."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm) and not module._is_instance_norm:
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with model._E.no_grad():
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
    for bn_module in momenta:
        bn_module.momentum = momenta[bn_module]
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to its ``swa_lr`` over ``anneal_epochs`` steps, by a
    cosine or linear ramp, then hold it (torch's SWALR)."""

    def __init__(self, optimizer: Any, swa_lr: Any, anneal_epochs: int = 10,
                 anneal_strategy: str = "cos", last_epoch: int = -1) -> None:
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: Any, swa_lr: Any, alpha: float) -> Any:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[Any]:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = (self._cosine_anneal if anneal_strategy == "cos"
                            else self._linear_anneal)

    def state_dict(self) -> dict[str, Any]:
        return _attributes(self, "anneal_func")

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
