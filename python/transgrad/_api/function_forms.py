"""The two ways to write a custom Function's forward (both engines' ``Function.apply``).

Input: a ``Function`` subclass and the arguments of ``apply``. Output: ``forward_args`` — the
arguments the node gets edges for (with ``setup_context``: forward's defaults bound in, as
torch's) — and ``run_forward``, which calls ``forward(ctx, *args)`` (the classic form) or
``forward(*args)`` then ``setup_context(ctx, inputs, output)`` (the separate form, chosen when
the class overrides ``setup_context``). ``backward_result`` turns a bare ``None`` (or no return
statement) from backward into one None gradient, as torch accepts for a one-input Function.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any, Sequence, Tuple

from transgrad._api.views import refresh_views, registry_for, scatter_into_base
from transgrad._backend import backend_of, is_tensor

# torch's words for a Function subclass that lacks a method, and for the legacy style (an
# instance called like a module); both engines raise them
FORWARD_MISSING = "You must implement the forward function for custom autograd.Function."
BACKWARD_MISSING = ("You must implement either the backward or vjp method for your custom "
                    "autograd.Function to use it with backward mode AD.")
LEGACY_CALL = ("Legacy autograd function with non-static forward method is deprecated. Please "
               "use new-style autograd function with static forward method. (Example: "
               "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")


def legacy_call(self: Any, *args: Any, **kwargs: Any) -> Any:
    """``Function.__call__``: torch refuses the pre-0.4 style ``MyFn()(x)``."""
    raise RuntimeError(LEGACY_CALL)


def base_setup_context(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> Any:
    """The base class's ``setup_context``: not overridden means the classic form."""
    raise NotImplementedError("setup_context is not implemented.")


def separate_form(cls: type) -> bool:
    """Whether ``cls`` defines forward without ctx plus ``setup_context``."""
    return getattr(cls, "setup_context", base_setup_context) is not base_setup_context


def forward_args(cls: type, args: Tuple[Any, ...], kwargs: Any) -> Tuple[Any, ...]:
    """``apply``'s arguments, positional; with ``setup_context`` forward's defaults included."""
    if not separate_form(cls):
        if kwargs:
            raise TypeError(f"{cls.__name__}.apply takes positional arguments only (forward "
                            "with ctx); define setup_context to pass keywords")
        return tuple(args)
    bound = inspect.signature(cls.forward).bind(*args, **kwargs)  # type: ignore[attr-defined]
    bound.apply_defaults()
    return tuple(bound.args) + tuple(bound.kwargs.values())


def run_forward(cls: type, ctx: Any, args: Tuple[Any, ...]) -> Any:
    """Run forward in the class's form (the caller has disabled grad mode)."""
    if not separate_form(cls):
        return cls.forward(ctx, *args)  # type: ignore[attr-defined]
    output = cls.forward(*args)  # type: ignore[attr-defined]
    cls.setup_context(ctx, args, output)  # type: ignore[attr-defined]
    return output


def backward_result(result: Any) -> Any:
    """``None`` from backward means one None gradient (torch accepts it for one input)."""
    return (None,) if result is None else result


def check_dirty(dirty: Sequence[Any], args: Tuple[Any, ...], recording: bool) -> None:
    """torch's checks of ``ctx.mark_dirty`` (both engines, before the node is made): a tensor
    that is not an input is a warning; a view of a leaf that requires grad cannot be changed in
    place while autograd records (its base would not see the change)."""
    for d in dirty:
        if not any(d is a for a in args):
            warnings.warn("ctx.mark_dirty() received a tensor that was not an input. Only input "
                          "Tensors that have been mutated should be passed to "
                          "ctx.mark_dirty().", UserWarning, stacklevel=3)
            continue
        info = registry_for(backend_of(d)).get(d) if recording else None
        if info is not None and info.base.is_leaf and info.base.requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")


def check_dirty_view_outputs(dirty: Sequence[Any], result: Any, recording: bool) -> None:
    """torch refuses a Function that changes a view in place and returns several tensors: the
    base's new history (Note [Dirty views in custom Functions]) can follow one output only."""
    if not recording:
        return
    outputs = result if isinstance(result, tuple) else (result,)
    n_tensors = sum(1 for o in outputs if is_tensor(o))
    if n_tensors > 1 and any(registry_for(backend_of(d)).get(d) is not None for d in dirty):
        raise RuntimeError(
            "If your Function modifies inplace an input that is a view of another Tensor, your "
            "Function cannot return more than one Tensor. This is not supported by the current "
            "autograd engine. You should either make sure the input is not a view (using "
            ".clone() for example) or make your Function only return one Tensor (potentially "
            "splitting it into two Functions: one doing the inplace that returns a single "
            "Tensor and a second one that does the other operations). You can ask on the forum "
            "https://discuss.pytorch.org/ if you need help to do this change.")


def check_dirty_returned(dirty: Sequence[Any], result: Any) -> None:
    """torch's check that every tensor given to ``ctx.mark_dirty`` is an output: the in-place
    change is recorded on the returned tensor, so a dirty input that is not returned would keep
    a history that no longer matches its values."""
    outputs = result if isinstance(result, tuple) else (result,)
    for d in dirty:
        if not any(d is o for o in outputs):
            raise RuntimeError("Some elements marked as dirty during the forward method were "
                               "not returned as output. The inputs that are modified inplace "
                               "must all be outputs of the Function.")


def rebase_dirty_views(dirty: Sequence[Any]) -> None:
    """Note [Dirty views in custom Functions]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    A Function that changes a view of another tensor in place (``ctx.mark_dirty(view)``) has
    changed its base too. Once apply has made the view an output of the Function's node, the
    base gets the history of "the base with the view's elements replaced by that output" (the
    out-of-place record of Note [In-place on views], torch's CopySlices), and every view of the
    base is replayed from it. Without this the base kept its old history and the gradient of
    the Function's other inputs was silently lost. The storage already holds the new values,
    so only the history is set (no second version bump: the Function's saved outputs stay
    valid)."""
    for d in dirty:
        if not d.requires_grad or d.grad_fn is None:
            continue
        B = backend_of(d)
        views = registry_for(B)
        info = views.get(d)
        if info is None:
            continue
        with B.autograd.enable_grad():
            base_new = scatter_into_base(B, info, d)
        B.set_history_(info.base, base_new)
        refresh_views(B, views, info.base)
