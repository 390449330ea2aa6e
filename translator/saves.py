"""Saves: what each compiled node keeps of its forward (a pass over the IR).

Stage: after the capture rule (IR + captures -> IR). Input: a module's IR, lowered with empty
``BackwardFn.saved``, and the ``model.Module`` whose ``Backward.captures`` the capture rule
filled from that IR (captures.py). Output: the same IR with one ``SavedValue`` per capture,
in the order the captures are bound, and each backward's body reading a metadata-only capture
through its saved metadata (``x.shape`` of a tensor the backward reads only for its metadata
becomes a read of the node's ``x_shape`` member).

Invariants: the node's members are exactly the rule's captures (the one analysis of what a
backward reads; Note [One analysis] in frontend.py); a capture whose forward binding lowering
refused gets no member (its error is already reported); a metadata-only capture whose value
the body still reads is a translator bug, raised as an ``AssertionError``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from . import ir, model


def attach_saved(lowered: ir.Module, mod: model.Module) -> ir.Module:
    """``lowered`` (the IR of ``mod``) with every formula's node members."""
    captures = {(f.name, f.loc.line): f.backward.captures
                for f in mod.formulas if f.backward is not None}
    functions = []
    for fn in lowered.functions:
        if fn.backward is not None:
            outputs = {o.name for o in fn.outputs}
            backward = _with_saved(fn.backward, outputs, captures[fn.name, fn.loc.line])
            fn = dataclasses.replace(fn, backward=backward)
        functions.append(fn)
    return dataclasses.replace(lowered, functions=tuple(functions))


def _with_saved(bw: ir.BackwardFn, outputs: set[str], captures: Sequence[model.Capture]
                ) -> ir.BackwardFn:
    forward = {name: (t, narrowed) for name, t, narrowed in bw.forward}
    saved, meta_only = [], {}
    for c in sorted(captures, key=lambda c: (c.bound_at.line, c.bound_at.col)):
        name, bound = c.name, c.bound_at
        if name not in forward:  # the forward failed to bind it: its error is already recorded
            continue
        t, narrowed = forward[name]
        if t.is_tensor or t == ir.TENSOR_LIST:
            storage = "output" if name in outputs else "input"
            if c.metadata_only and t != ir.TENSOR_LIST:
                # an Optional tensor always saves whether it was given
                attrs = set(c.metadata) | ({"defined"} if t.is_optional else set())
                saved.append(ir.SavedValue(name, "meta", t, tuple(sorted(attrs)), loc=bound))
                meta_only[name] = t
            else:
                saved.append(ir.SavedValue(name, storage, t, loc=bound))
        else:
            unwrap = narrowed and t.is_optional
            st = t.inner if unwrap else t
            saved.append(ir.SavedValue(name, "attribute", st, unwrap=unwrap, loc=bound))

    def rewrite(e):
        if isinstance(e, ir.Meta) and isinstance(e.value, ir.Saved) and (
                e.value.name in meta_only):
            return ir.Saved(e.loc, e.type, e.value.name, e.attr)
        if isinstance(e, ir.IsNone) and isinstance(e.value, ir.Saved) and (
                e.value.name in meta_only):
            defined = ir.Saved(e.loc, ir.BOOL, e.value.name, "defined")
            return defined if e.negate else ir.Not(e.loc, ir.BOOL, defined)
        return e

    body = tuple(ir.transform(s, rewrite) for s in bw.body)

    def whole_read(e):
        if isinstance(e, ir.Saved) and e.what == "value" and e.name in meta_only:
            raise AssertionError(f"{e.loc}: `{e.name}` is saved as metadata only (the capture "
                                 "rule's verdict) but the backward reads its value")
        return e

    for s in body:
        ir.transform(s, whole_read)
    return dataclasses.replace(bw, saved=tuple(saved), body=body)
