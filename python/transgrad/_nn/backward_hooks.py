"""Module backward hooks: ``register_full_backward_hook`` and
``register_full_backward_pre_hook`` (torch.utils.hooks.BackwardHook), engine-neutral.

Input: one call of a module that has such hooks (its own or global ones). Output: the call's
positional tensor inputs and its output tensors, each passed through an identity custom Function
of the module's engine whose backward runs the hooks.

Note [Module backward hooks]
The hooks must see the gradients of the module's outputs (``grad_output``) and of its
positional tensor inputs (``grad_input``), whatever ops the forward ran. As torch does, the
positional tensor inputs enter the forward through one identity Function and the output tensors
leave it through another: the backward of the output identity receives ``grad_output`` (runs the
pre-hooks, which may replace it, and keeps it), the backward of the input identity receives
``grad_input`` (runs the hooks with the kept ``grad_output``; a non-None result replaces
``grad_input``). Both tuples are as long as the argument list and the output tuple, None where
there is no tensor (zeros for a tensor that does not require grad, as torch). When no input
requires grad, the hooks run in the output identity's backward with ``grad_input`` all None,
with torch's warning. Each call gets its own ``BackwardHook``, so a module called twice in one
graph runs its hooks twice.
"""

from __future__ import annotations

import warnings
from typing import Any

from transgrad._backend import backend_of

_NO_INPUT_GRAD_WARNING = (
    "Full backward hook is firing when gradients are computed with respect to module outputs "
    "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
    "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.")

_FUNCTIONS: dict[str, Any] = {}


def _identity_function(E: Any) -> Any:
    """The engine's ``BackwardHookFunction``: identity forward, a callback as its backward."""
    if E.name not in _FUNCTIONS:
        Function = E.module.autograd.Function

        class BackwardHookFunction(Function):  # type: ignore[misc, valid-type]
            @staticmethod
            def forward(ctx: Any, callback: Any, *tensors: Any) -> Any:
                ctx.callback = callback
                out = tuple(t.view_as(t) for t in tensors)
                return out[0] if len(out) == 1 else out

            @staticmethod
            def backward(ctx: Any, *grads: Any) -> Any:
                return (None, *ctx.callback(grads))

        _FUNCTIONS[E.name] = BackwardHookFunction
    return _FUNCTIONS[E.name]


def _pack(indices: list[int], values: Any, size: int) -> tuple:
    out: list[Any] = [None] * size
    for i, v in zip(indices, values):
        out[i] = v
    return tuple(out)


class BackwardHook:
    """The backward hooks of one module call (Note [Module backward hooks])."""

    def __init__(self, module: Any, hooks: list, pre_hooks: list) -> None:
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs: tuple | None = None
        self.n_inputs = 0
        self.input_index: list[int] | None = None
        self.n_outputs = 0
        self.output_index: list[int] = []

    def _wrap(self, values: tuple, callback: Any) -> tuple[list[int], tuple] | None:
        """Pass the tensors of ``values`` through the identity Function; None when none of
        them requires grad or grad mode is off. A tensor that does not require grad goes
        through too; its gradient reads as zeros, as torch's non-differentiable outputs."""
        index = [i for i, v in enumerate(values) if _is_tensor(v)]
        if not any(values[i].requires_grad for i in index):
            return None
        E = backend_of(values[index[0]])
        if not E.module.is_grad_enabled():
            return None
        needs = [values[i].requires_grad for i in index]

        def masked(grads: tuple) -> tuple:
            # the gradient of a tensor that did not require grad reads as zeros and is not
            # passed on (torch's mark_non_differentiable)
            grads = tuple(g if need else (None if g is None else g * 0.0)
                          for g, need in zip(grads, needs))
            result = callback(grads)
            return tuple(g if need else None for g, need in zip(result, needs))

        out = _identity_function(E).apply(masked, *(values[i] for i in index))
        out = out if isinstance(out, tuple) else (out,)
        new = list(values)
        for i, t in zip(index, out):
            new[i] = t
        return index, tuple(new)

    def setup_input_hook(self, args: tuple) -> tuple:
        self.n_inputs = len(args)
        wrapped = self._wrap(args, self._input_grads)
        if wrapped is None:
            return args
        self.input_index, args = wrapped
        return args

    def setup_output_hook(self, output: Any) -> Any:
        single = not isinstance(output, tuple)
        values = (output,) if single else output
        self.n_outputs = len(values)
        wrapped = self._wrap(values, self._output_grads)
        if wrapped is None:
            return output
        self.output_index, values = wrapped
        return values[0] if single else values

    def _output_grads(self, grads: tuple) -> tuple:
        self.grad_outputs = _pack(self.output_index, grads, self.n_outputs)
        for pre_hook in self.pre_hooks:
            result = pre_hook(self.module, self.grad_outputs)
            if result is None:
                continue
            if len(result) != len(self.grad_outputs):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(result)}, but expected {len(self.grad_outputs)}")
            self.grad_outputs = tuple(result)
        local = self.grad_outputs
        if self.input_index is None:
            warnings.warn(_NO_INPUT_GRAD_WARNING, UserWarning, stacklevel=2)
            grad_inputs = (None,) * self.n_inputs
            for hook in self.hooks:
                result = hook(self.module, grad_inputs, self.grad_outputs)
                if result is not None and not (isinstance(result, tuple)
                                               and all(r is None for r in result)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        return tuple(local[i] for i in self.output_index)

    def _input_grads(self, grads: tuple) -> tuple:
        assert self.input_index is not None
        if self.grad_outputs is None:
            # the gradient reached the inputs without passing through the outputs (a double
            # backward): torch runs no hook then
            return grads
        result = _pack(self.input_index, grads, self.n_inputs)
        for hook in self.hooks:
            out = hook(self.module, result, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(result):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, got "
                                   f"{len(out)}, but expected {len(result)}")
            result = tuple(out)
        self.grad_outputs = None
        return tuple(result[i] for i in self.input_index)


def _is_tensor(value: Any) -> bool:
    from transgrad._backend import is_tensor

    return is_tensor(value)
