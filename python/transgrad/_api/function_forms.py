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

from transgrad._api.views import registry_for
from transgrad._backend import backend_of


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
