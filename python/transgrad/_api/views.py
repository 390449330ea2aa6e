"""Views for autograd: which tensor is a view of which base, and how to rebuild it from the base.

Input: the view functions of functions.py (view/reshape when strides allow, transpose, permute,
expand, squeeze, unsqueeze, narrow, select, diagonal, movedim, t, ...), decorated with
``track_view`` so that each result sharing its input's storage is registered here (one registry
per engine) with its base and the *chain* of calls that rebuilds it from the base; multi-view
functions (split, chunk, unbind, ``track_views``) register their outputs as such. Indexing
registers basic-index results the same way (indexing.py).

Note [In-place on views]
~~~~~~~~~~~~~~~~~~~~~~~~
A view shares storage and version counter with its base (both engines' kernels). When an
in-place op on a view ``v`` of ``base`` records (methods.py, Note [In-place ops]), its result
``new`` is written into ``base`` *out of place and differentiably*, PyTorch's CopySlices in
formulas: the positions of ``v`` in ``base`` come from replaying ``v``'s chain on
``arange(base.numel)``; ``base_new = where(mask, index_add(zeros, positions, new), base)``; then
``base`` is overwritten with ``base_new`` and takes its history. So the gradient of the view's
region flows through the in-place op, the rest to ``base``'s old history, to any order. Every
registered view of ``base`` (``v`` included) then gets a fresh grad_fn by replaying its chain
on the new ``base`` (no copy: ``set_history_``). Refused while recording: a view of a leaf that
requires grad, an output of a multi-view function, and a view whose elements overlap (expand).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from transgrad._backend import backend_of

Step = tuple[Callable[..., Any], tuple, dict]


class ViewInfo:
    __slots__ = ("base", "chain", "multi", "ref", "no_grad")

    def __init__(self, ref: Any, base: Any, chain: tuple[Step, ...],
                 multi: tuple[str, int] | None, no_grad: bool = False) -> None:
        self.ref, self.base, self.chain, self.multi = ref, base, chain, multi
        # made under no_grad from a base that requires grad: torch forbids changing it in place
        # with grad mode back on (which history should it get?)
        self.no_grad = no_grad


class Views:
    """view -> ViewInfo (weakly keyed by the view's Python object); base -> its live views."""

    def __init__(self) -> None:
        self._info: dict[int, ViewInfo] = {}
        self._children: dict[int, dict[int, Any]] = {}

    def add(self, view: Any, src: Any, step: Step,
            multi: tuple[str, int] | None = None) -> None:
        if view is src or not src._shares_storage(view):
            return
        parent = self.get(src)
        base, chain = (parent.base, parent.chain + (step,)) if parent else (src, (step,))
        key, info_map, children = id(view), self._info, self._children
        bkey = id(base)

        def forget(_r: Any) -> None:
            info_map.pop(key, None)
            kids = children.get(bkey)
            if kids is not None:
                kids.pop(key, None)
                if not kids:
                    children.pop(bkey, None)

        try:
            ref = weakref.ref(view, forget)
        except TypeError:  # a tensor class without weak references: views are not tracked
            return
        no_grad = (parent.no_grad if parent else False) or (
            base.requires_grad and not backend_of(view).autograd.is_grad_enabled())
        info_map[key] = ViewInfo(ref, base, chain, multi or (parent.multi if parent else None),
                                 no_grad)
        children.setdefault(bkey, {})[key] = ref

    def get(self, view: Any) -> ViewInfo | None:
        info = self._info.get(id(view))
        return info if info is not None and info.ref() is view else None

    def set_chain(self, view: Any, chain: tuple[Step, ...]) -> None:
        """Record a new way to rebuild ``view`` from its base: its metadata changed in place
        (Note [In-place metadata changes] in inplace_shape.py)."""
        info = self.get(view)
        if info is not None:
            info.chain = chain

    def forget(self, view: Any) -> None:
        """``view`` no longer shares its base's storage (``resize_`` gave it a new one)."""
        info = self.get(view)
        if info is not None:
            self._info.pop(id(view), None)
            self._children.get(id(info.base), {}).pop(id(view), None)

    def children(self, base: Any) -> list[Any]:
        kids = self._children.get(id(base), {})
        return [v for v in (r() for r in list(kids.values())) if v is not None and
                self.get(v) is not None and self.get(v).base is base]  # type: ignore[union-attr]


_REGISTRIES: dict[int, Views] = {}


def registry_for(B: Any) -> Views:
    """The view registry of backend ``B`` (one per engine)."""
    return _REGISTRIES.setdefault(id(B.Tensor), Views())


def replay(chain: tuple[Step, ...], base: Any) -> Any:
    out = base
    for fn, args, kwargs in chain:
        out = fn(out, *args, **kwargs)
    return out


def track_view(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a view function: a result sharing its input's storage is registered with the
    call that rebuilds it from the input (Note [In-place on views])."""

    @functools.wraps(fn)
    def view_fn(x: Any, *args: Any, **kwargs: Any) -> Any:
        out = fn(x, *args, **kwargs)
        registry_for(backend_of(x)).add(out, x, (fn, args, kwargs))
        return out

    return view_fn


def track_views(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a function returning several views (split, chunk, unbind): each result is
    registered as output ``i`` of ``fn``, which may not be modified in place while recording."""
    name = fn.__name__

    @functools.wraps(fn)
    def views_fn(x: Any, *args: Any, **kwargs: Any) -> Any:
        outs = fn(x, *args, **kwargs)
        views = registry_for(backend_of(x))
        for i, out in enumerate(outs):
            views.add(out, x, (lambda b, i=i: fn(b, *args, **kwargs)[i], (), {}),
                      multi=(name, i))
        return outs

    return views_fn


def scatter_into_base(B: Any, info: ViewInfo, new: Any) -> Any:
    """``base`` with the view's elements replaced by ``new``, recorded out of place (Note [In-place
    on views])."""
    base = info.base
    n = int(np.prod(base.shape, dtype=np.int64))
    with B.autograd.no_grad():
        where_ = replay(info.chain, B.from_numpy(np.arange(n, dtype=np.int64).reshape(
            tuple(base.shape))))
    positions = np.array(where_, dtype=np.int64).reshape(-1)
    if np.unique(positions).size != positions.size:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location (an expanded view). "
                           "Please clone() the tensor before performing the operation.")
    mask = np.zeros(n, dtype=bool)
    mask[positions] = True
    zeros = B.from_numpy(np.zeros(n, np.dtype(base.dtype)))
    flat = B.ops.index_add(zeros, 0, B.from_numpy(positions),
                           B.ops.reshape(new, (int(np.prod(new.shape, dtype=np.int64)),)))
    return B.ops.where(B.from_numpy(mask.reshape(tuple(base.shape))),
                       B.ops.reshape(flat, tuple(base.shape)), base)


def refresh_views(B: Any, views: Views, base: Any) -> None:
    """Give every registered view of ``base`` a grad_fn replayed from ``base``'s new history;
    an output of a multi-view function gets one that refuses to run (Note [A multi-view output
    whose base changed])."""
    for v in views.children(base):
        info = views.get(v)
        if info is None:
            continue
        fresh = replay(info.chain, base)
        if info.multi is not None and fresh.requires_grad:
            fresh = _rebased_multi_view(B).apply(fresh, multi_view_message(info.multi, False))
        B.set_history_(v, fresh)


# how torch 2.13 names the function in its multi-view messages (not the node's name)
MULTI_VIEW_FUNCTIONS = {"split": "Split", "chunk": "Split", "split_with_sizes": "SplitWithSizes",
                        "unbind": "Unbind"}


def multi_view_message(multi: tuple[str, int], modified_itself: bool) -> str:
    """torch's words (code matches on them) for output ``i`` of multi-view function ``fn``
    modified in place (``modified_itself``) or after its base was, then the function's name."""
    fn, i = multi
    what = ("is being modified inplace" if modified_itself
            else "its base or another view of its base has been modified inplace")
    return (f"Output {i} of {MULTI_VIEW_FUNCTIONS.get(fn, f'{fn}()')} is a view and {what}. This "
            "view is the output of a function that returns multiple views. Such functions do not "
            "allow the output views to be modified inplace. You should replace the inplace "
            f"operation by an out-of-place one (or clone() the view first; the view came from "
            f"{fn}()).")


# Note [A multi-view output whose base changed]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch refuses to differentiate an output of split/chunk/unbind once its base (or another view
# of it) has been changed in place: the one node shared by all the outputs (Note [Several views,
# one node]) cannot be replayed for one of them. Here such an output's history becomes a node
# whose backward raises torch's message, so a backward through it fails with torch's words
# instead of propagating a gradient torch would not give. torch raises earlier, as soon as the
# output's grad_fn is read (any op on it); transgrad raises when the backward reaches it.
_REBASED: dict[int, Any] = {}


def _rebased_multi_view(B: Any) -> Any:
    """The Function (one per engine) that stands for a multi-view output whose base changed."""
    cls = _REBASED.get(id(B.Tensor))
    if cls is None:
        class RebasedMultiView(B.autograd.Function):  # type: ignore[name-defined,misc]
            @staticmethod
            def forward(ctx: Any, x: Any, message: str) -> Any:
                ctx.message = message
                return x.view_as(x)  # only its history is kept (set_history_): no copy

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                raise RuntimeError(ctx.message)

        cls = _REBASED[id(B.Tensor)] = RebasedMultiView
    return cls


def int_list(values: Any, name: str) -> tuple[int, ...]:
    if isinstance(values, (int, np.integer)):
        return (int(values),)
    try:
        out = tuple(values)
    except TypeError:
        raise TypeError(f"as_strided(): argument '{name}' must be tuple of ints, not "
                        f"{type(values).__name__}") from None
    for v in out:
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise TypeError(f"as_strided(): argument '{name}' must be tuple of ints, but found "
                            f"element of type {type(v).__name__}")
    return tuple(int(v) for v in out)


def offset_in_storage(x: Any) -> int:
    """The index of ``x``'s first element in its storage (both engines)."""
    offset = getattr(x, "_offset", None)  # the compiled engine's; the reference computes it
    return int(offset) if offset is not None else int(x._storage_offset())
