"""``transgrad.autograd``: the compiled engine's autograd entry points: ``backward``, ``grad``,
``Function`` (with ``FunctionCtx`` and ``once_differentiable``), grad mode (``no_grad``,
``enable_grad``, ``set_grad_enabled``, ``is_grad_enabled``), ``detect_anomaly``; ``gradcheck``
and ``gradgradcheck`` (engine-neutral, shared with ``transgrad.reference.autograd``); and the
submodule ``functional`` (vjp, jvp, jacobian, hessian, ...).

Input: the extension ``transgrad._C``. Invariants: backward and grad run in C++ with the GIL
released (``_C.autograd.run_backward``); grad mode is the C++ thread-local flag, so the compiled
ops and these context managers see the same state. ``transgrad.reference.autograd`` is the
reference engine's module with the same names.
"""

from __future__ import annotations

import builtins
import functools
import inspect
from typing import Any, Callable, List, Optional, Tuple

import numpy as np

from transgrad import _C as _C_module
from transgrad._api.function_forms import (
    BACKWARD_MISSING,
    FORWARD_MISSING,
    backward_result,
    base_setup_context,
    check_dirty,
    check_dirty_returned,
    check_dirty_view_outputs,
    forward_args,
    legacy_call,
    rebase_dirty_views,
    run_forward,
)
from transgrad._api.grad_mode import make_anomaly_modes, make_grad_modes
from transgrad._api.legacy_autograd import (
    make_inplace_function,
    make_multithreading,
    make_variable,
)
from transgrad.autograd import gradcheck as _gradcheck_module

_C: Any = _C_module
# torch's layout: the submodule autograd.gradcheck exists (GradcheckError is there) and the
# package's name gradcheck is the function
gradcheck, gradgradcheck = _gradcheck_module.gradcheck, _gradcheck_module.gradgradcheck
Tensor = _C.Tensor
_run_backward = _C.autograd.run_backward
_is_enabled = _C.is_grad_enabled
_set_enabled = _C.set_grad_enabled


# ---- grad mode (the C++ thread-local flag) ----------------------------------------------------

def is_grad_enabled() -> bool:
    return _is_enabled()


no_grad, enable_grad, set_grad_enabled = make_grad_modes(_is_enabled, _set_enabled)


detect_anomaly, set_detect_anomaly = make_anomaly_modes(_C.autograd.is_anomaly_enabled,
                                                       _C.autograd.set_anomaly_enabled)


# ---- backward / grad ------------------------------------------------------------------------

def _as_list(value: Any, what: str) -> List[Any]:
    items = [value] if isinstance(value, Tensor) else list(value)
    for t in items:
        if not isinstance(t, Tensor):
            raise TypeError(f"{what} must be Tensors, got {type(t).__name__}")
    return items


def _grad_list(grads: Any, tensors: List[Any]) -> Optional[List[Any]]:
    if grads is None:
        return None
    grads = [grads] if isinstance(grads, Tensor) else list(grads)
    out = []
    for g, t in zip(grads, tensors):
        if g is not None and not isinstance(g, Tensor):
            g = _C.from_numpy(np.array(g, dtype=t.dtype))
        out.append(g)
    return out + grads[len(out):]


def backward(tensors: Any, grad_tensors: Any = None, retain_graph: Optional[bool] = None,
             create_graph: bool = False, inputs: Any = None) -> None:
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves (of ``inputs``
    only, when given)."""
    tensors = _as_list(tensors, "tensors")
    if inputs is not None:
        inputs = _as_list(inputs, "inputs")
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    _run_backward(tensors, _grad_list(grad_tensors, tensors), retain_graph, create_graph,
                  inputs, False, True)


def grad(outputs: Any, inputs: Any, grad_outputs: Any = None,
         retain_graph: Optional[bool] = None, create_graph: bool = False,
         allow_unused: Optional[bool] = None, materialize_grads: bool = False) -> Tuple[Any, ...]:
    """The gradients of ``outputs`` with respect to ``inputs`` (a tuple, one per input)."""
    outputs = _as_list(outputs, "outputs")
    inputs = _as_list(inputs, "inputs")
    if not inputs:  # torch's text (the engine's own check words it differently)
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    result = _run_backward(outputs, _grad_list(grad_outputs, outputs), retain_graph,
                           create_graph, inputs, builtins.bool(allow_unused or materialize_grads),
                           False)
    if materialize_grads:
        # under create_graph the zeros take part in the next grad(), as torch's
        result = tuple(g if g is not None else _C.from_numpy(np.zeros(x.shape, x.dtype))
                       .requires_grad_(builtins.bool(create_graph))
                       for g, x in zip(result, inputs))
    return result


# ---- custom Functions -----------------------------------------------------------------------

FunctionCtx = _C.autograd.FunctionCtx


def _location(cls: type) -> Tuple[str, int]:
    """Where ``cls.backward`` is defined, for error messages (cached per class)."""
    loc = cls.__dict__.get("_tg_location")
    if loc is None:
        try:
            fn = inspect.unwrap(cls.backward)  # type: ignore[attr-defined]
            loc = (inspect.getsourcefile(fn) or "", fn.__code__.co_firstlineno)
        except (TypeError, OSError, AttributeError):
            loc = ("", 0)
        cls._tg_location = loc  # type: ignore[attr-defined]
    return loc


def _call_backward(cls: type) -> Callable[..., Any]:
    backward = cls.__dict__.get("_tg_backward")
    if backward is None:
        def backward(ctx: Any, *grads: Any) -> Any:
            return backward_result(cls.backward(ctx, *grads))  # type: ignore[attr-defined]

        cls._tg_backward = backward  # type: ignore[attr-defined]
    return backward


class Function:
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)`` (or
    ``forward(*args)`` plus ``setup_context(ctx, inputs, output)``); call ``apply``.
    ``backward`` returns one entry per argument of forward (None for no gradient)."""

    @staticmethod
    def forward(ctx: Any, *args: Any) -> Any:
        raise NotImplementedError(FORWARD_MISSING)

    setup_context = staticmethod(base_setup_context)
    __call__ = legacy_call

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise NotImplementedError(BACKWARD_MISSING)

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        args = forward_args(cls, args, kwargs)
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        prev = _is_enabled()
        _set_enabled(False)
        try:
            result = run_forward(cls, ctx, args)
        finally:
            _set_enabled(prev)
        dirty = ctx._dirty  # the node clears its list once it has applied it
        check_dirty(dirty, args, prev and builtins.any(ctx.needs_input_grad))
        check_dirty_returned(dirty, result)
        check_dirty_view_outputs(dirty, result, prev and builtins.any(ctx.needs_input_grad))
        path, line = _location(cls)
        out = _C.autograd._function_apply(_call_backward(cls), ctx, args, result,
                                          f"{cls.__name__}Backward", path, line)
        if dirty and prev:
            rebase_dirty_views(dirty)  # Note [Dirty views in custom Functions]
        return out


# Note [once_differentiable as torch's]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch's once_differentiable (torch/autograd/function.py) runs the backward under no_grad and,
# when grad mode is on and one of the grads it received requires grad, gives its results the
# grad_fn of an ``Error`` node whose next edges lead to fresh leaves aliasing those results (one
# per result, None where the result is None). Differentiating a result raises "trying to
# differentiate twice a function that was marked with @once_differentiable"; autograd.grad with
# respect to the Function's inputs does not reach the node (its edges do not lead there), so it
# says the input was unused, as torch's. When the received grads do not require grad the results
# stay constants, as torch's. Both engines: wrap_delayed_error in csrc/autograd/function.cpp,
# attach_error_node in reference/node.py. A formula's own @formula(once_differentiable=True) is
# transgrad's and keeps its stricter node (wrap_once_differentiable): never a silent constant.
def once_differentiable(backward: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a Function's backward that is not itself differentiable: it runs under no_grad,
    and differentiating its results (double backward) raises a clear error."""

    @functools.wraps(backward)
    def run(ctx: Any, *grads: Any) -> Any:
        with no_grad():
            result = backward(ctx, *grads)
        if not _is_enabled():
            return result
        sources = [g for g in grads if isinstance(g, Tensor)]
        return _C.autograd._once_differentiable(ctx, sources, result)

    return run


Variable = make_variable(Tensor, lambda: _C.from_numpy(np.zeros(0, np.float32)),
                         _C.autograd.queue_callback)
InplaceFunction = make_inplace_function(Function)
set_multithreading_enabled, is_multithreading_enabled = make_multithreading()

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad",
           "enable_grad", "set_grad_enabled", "is_grad_enabled", "detect_anomaly",
           "set_detect_anomaly", "gradcheck", "gradgradcheck", "Variable",
           "set_multithreading_enabled", "is_multithreading_enabled"]

from . import function, functional, graph  # noqa: E402,F401  (submodules, as torch)
