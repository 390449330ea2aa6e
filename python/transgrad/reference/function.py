"""Custom autograd functions written in Python: ``autograd.Function`` (PyTorch's API).

``MyFn.apply(*args)`` runs ``MyFn.forward(ctx, *args)`` with grad mode disabled; when an input
requires grad, ``ctx`` — which is the graph node itself, like PyTorch's — gets one next edge per
argument (non-tensors: none) and the differentiable outputs get it as grad_fn. The engine calls
``MyFn.backward(ctx, *grads)``, which returns one entry per argument of forward.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, List, Tuple

import numpy as np

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
from transgrad._dtypes import is_floating_or_complex
from transgrad.reference.formula import validate_grads
from transgrad.reference.grad_mode import is_grad_enabled, no_grad
from transgrad.reference.node import Node, SavedTensor, attach_error_node, gradient_edge
from transgrad.reference.tensor import Tensor


class FunctionCtx(Node):
    """``ctx`` of a custom Function, and its backward node."""

    __slots__ = ("fn_cls", "needs_input_grad", "materialize_grads", "_to_save", "_saved",
                 "_non_differentiable", "_dirty", "input_meta", "output_meta", "__dict__")

    def __init__(self, fn_cls: Any) -> None:
        super().__init__([])
        self.fn_cls = fn_cls
        self.needs_input_grad: Tuple[bool, ...] = ()
        self.materialize_grads = True
        self._to_save: Tuple[Any, ...] = ()
        self._saved: List[Any] = []
        self._non_differentiable: List[Tensor] = []
        self._dirty: List[Tensor] = []
        self.input_meta: List[Any] = []
        self.output_meta: List[Any] = []

    def name(self) -> str:
        return f"{self.fn_cls.__name__}Backward"

    # -- the ctx API -----------------------------------------------------------------------

    def save_for_backward(self, *tensors: Any) -> None:
        self._to_save = tensors

    @property
    def saved_tensors(self) -> Tuple[Any, ...]:
        return tuple(s.unpack(self) if isinstance(s, SavedTensor) else s for s in self._saved)

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        self._non_differentiable.extend(tensors)

    def mark_dirty(self, *tensors: Tensor) -> None:
        self._dirty.extend(tensors)

    # -- the node --------------------------------------------------------------------------

    def release_variables(self) -> None:
        for s in self._saved:
            if isinstance(s, SavedTensor):
                s.release()

    def apply(self, grads: List[Any]) -> List[Any]:
        grads = list(grads)
        if self.materialize_grads:
            for i, g in enumerate(grads):
                if g is None and self.output_meta[i] is not None:
                    grads[i] = Tensor._from_array(np.zeros(*self.output_meta[i]))
        result = backward_result(self.fn_cls.backward(self, *grads))
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self.next_edges)
        if len(result) < n or any(r is not None for r in result[n:]):
            raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                               f"gradients (expected {n}, got {len(result)})")
        return validate_grads(self, list(result[:n]), self.input_meta)


class Function:
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)`` (or
    ``forward(*args)`` plus ``setup_context(ctx, inputs, output)``); call ``apply``."""

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any) -> Any:
        raise NotImplementedError(FORWARD_MISSING)

    setup_context = staticmethod(base_setup_context)
    __call__ = legacy_call

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Any) -> Any:
        raise NotImplementedError(BACKWARD_MISSING)

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        args = forward_args(cls, args, kwargs)
        ctx = _ctx_class(cls)(cls)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        requires = is_grad_enabled() and any(ctx.needs_input_grad)
        with no_grad():
            result = run_forward(cls, ctx, args)
        outputs = list(result) if isinstance(result, tuple) else [result]
        dirty = ctx._dirty
        check_dirty(dirty, args, requires)
        check_dirty_returned(dirty, result)
        check_dirty_view_outputs(dirty, result, requires)
        for t in dirty:
            if requires and t.is_leaf and t.requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an "
                                   "in-place operation.")  # torch's words for a dirty leaf
            t._bump_version()
        for k, t in enumerate(outputs):  # a returned input (not dirty) becomes an alias
            if isinstance(t, Tensor) and not any(t is d for d in dirty) and any(
                    t is a for a in args):
                outputs[k] = Tensor._view_of(t, t._data)
        if requires:
            ctx.next_edges = [gradient_edge(a) if isinstance(a, Tensor) else None for a in args]
            ctx.input_meta = [(a._data.shape, a.dtype) if e is not None else None
                              for a, e in zip(args, ctx.next_edges)]
            ctx.n_outputs = len(outputs)
            ctx.output_meta = [None] * len(outputs)
            for k, t in enumerate(outputs):
                if not isinstance(t, Tensor):
                    continue
                ctx.output_meta[k] = (t._data.shape, t.dtype)
                if is_floating_or_complex(t.dtype) and not any(
                        t is m for m in ctx._non_differentiable):
                    t.grad_fn, t.output_nr = ctx, k
        ctx._saved = [_save(t, outputs) for t in ctx._to_save]
        ctx._to_save = ()
        if requires:
            rebase_dirty_views(dirty)  # Note [Dirty views in custom Functions]
        return tuple(outputs) if isinstance(result, tuple) else outputs[0]


def _ctx_class(cls: type) -> type:
    """The FunctionCtx subclass named ``<cls>Backward``, made once per Function class: torch's
    grad_fn of a custom Function is an instance of such a class (``type(y.grad_fn).__name__ ==
    "MyFnBackward"``; Note [Node classes named as torch's] in formula.py)."""
    made = cls.__dict__.get("_tg_ctx_class")
    if made is None:
        made = type(f"{cls.__name__}Backward", (FunctionCtx,), {"__slots__": ()})
        cls._tg_ctx_class = made  # type: ignore[attr-defined]
    return made


def _save(t: Any, outputs: List[Any]) -> Any:
    if t is None:
        return None
    if not isinstance(t, Tensor):
        raise TypeError(f"save_for_backward can only save tensors (or None), got {type(t)}")
    return SavedTensor(t, is_output=any(t is o for o in outputs))


def once_differentiable(backward: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a Function's backward that is not itself differentiable: it runs under no_grad,
    and differentiating its results (double backward) raises a clear error."""

    @functools.wraps(backward)
    def run(ctx: Any, *grads: Any) -> Any:
        with no_grad():
            result = backward(ctx, *grads)
        if not is_grad_enabled():
            return result
        single = not isinstance(result, tuple)
        name = ctx.name() if isinstance(ctx, Node) else "this function"
        out = attach_error_node([result] if single else list(result),
                                f"trying to differentiate twice a function that was marked "
                                f"with @once_differentiable ({name})", list(grads))
        return out[0] if single else tuple(out)

    return run
