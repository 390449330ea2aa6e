"""Provenance: where each non-tensor value of the IR comes from (a pass over the IR).

Stage: after ``lower`` (IR -> IR). Input: an ``ir.Module``, lowered (an ``ir.Refused``
statement binds its names with the flags of its ``value`` when it has one). Output: the same
module with ``Expr.prov`` set on every expression, and, per formula, the provenance of every
name its forward binds (``forward_provenance``).

Note [Provenance]
~~~~~~~~~~~~~~~~~
The capture rule (captures.py) refuses two kinds of non-tensor capture that the IR's types do
not tell apart from harmless ones: a scalar read out of tensor data (``kernel.item``: ITEM;
it types ``float`` like ``x.ndim * 1.0``) and a list (MUTABLE; it lowers to the ``MakeTuple``
of a tuple). Lowering marks MUTABLE where it sees the list (a display, a list comprehension,
``list(...)``) and AS_TUPLE on what ``tuple(...)`` returns (lowering makes it the argument
itself, so the mark is what drops MUTABLE); this pass propagates both flags, and the rule
reads them off the IR (Note [The capture rule reads the IR] in captures.py): a kernel
returning a number is ITEM; a helper call is ITEM when an argument is or the helper
(transitively) calls such a kernel; arithmetic, comparisons, conditionals and builtins join
their operands' flags; indexing, ``tuple(...)``, unary operators and comparisons drop MUTABLE;
metadata (``x.shape``...) is neither; a name bound under a branch or loop whose condition or
iterable is ITEM is ITEM (control dependence); a name bound several times joins its bindings,
in program order. Tensors carry flags too (``t * item``); the rule reads MUTABLE on any value
(a list of tensors is T209) and ITEM only on non-tensor values. ``prov`` is no part of an
expression's value (``compare=False``): the emitters never read it, and two expressions
differing only there are equal.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from . import ir


def annotate_module(mod: ir.Module) -> ir.Module:
    """``mod`` with ``prov`` set on every expression of its functions."""
    reading = helpers_reading_data(mod.helpers)
    helpers = tuple(_Annotator(reading).function(h)[0] for h in mod.helpers)
    functions = tuple(_Annotator(reading).function(f)[0] for f in mod.functions)
    return dataclasses.replace(mod, helpers=helpers, functions=functions)


def forward_provenance(mod: ir.Module, fn: ir.Function | ir.Refused,
                       reading: set[str] | None = None) -> dict[str, int]:
    """The flags of every name the forward of ``fn`` (a function of ``mod``, or one refused
    as a whole: what was lowered of it) binds, joined over its bindings: what a backward
    reading the name captures. ``reading``: ``helpers_reading_data(mod.helpers)``, when the
    caller asks of several functions of ``mod``."""
    if reading is None:
        reading = helpers_reading_data(mod.helpers)
    annotator = _Annotator(reading)
    if isinstance(fn, ir.Refused):
        annotator.block(fn.body)
        return annotator.env
    return annotator.function(fn)[1]


def forward_types(fn: ir.Function | ir.Refused) -> dict[str, ir.Type]:
    """The type of every name the forward of ``fn`` binds (lowering gives a local one type),
    a statement refused for its form binding its names to its ``value``'s. A name bound only
    by statements whose value lowering refused has none (Note [The capture rule reads the
    source] in captures.py)."""
    out: dict[str, ir.Type] = {}
    for s in ir.walk_stmts(fn.body):
        if isinstance(s, ir.Assign):
            types = (s.value.type,) if len(s.targets) == 1 else s.value.type.elems
            for n, t in zip(s.targets, types):
                out.setdefault(n, t)
        elif isinstance(s, ir.For):
            for n, t in zip(s.unpack or (s.var,), s.unpack_types or (s.var_type,)):
                out.setdefault(n, t)
        elif isinstance(s, ir.Refused) and s.value is not None:
            for n in s.assigns:
                out.setdefault(n, s.value.type)
    return out


def helpers_reading_data(helpers: tuple[ir.Function, ...]) -> set[str]:
    """Helpers that call a kernel returning a number, directly or through other helpers."""
    calls: dict[str, set[str]] = {h.name: set() for h in helpers}
    reading: set[str] = set()
    for h in helpers:
        for st in ir.walk_stmts(h.body):
            for e in _exprs(st):
                if isinstance(e, ir.Call) and e.kind == "kernel" and e.type in (ir.INT, ir.FLOAT):
                    reading.add(h.name)
                elif isinstance(e, ir.Call) and e.kind == "helper":
                    calls[h.name].add(e.name)
    for _ in helpers:
        reading |= {h for h, c in calls.items() if c & reading}
    return reading


def _exprs(node: Any):
    """Every expression inside ``node`` (not inside nested statements' blocks)."""
    found: list[ir.Expr] = []
    fields = [getattr(node, f.name) for f in dataclasses.fields(node)
              if f.name not in ("then", "orelse", "body")]

    def visit(n: Any) -> None:
        if isinstance(n, tuple):
            for x in n:
                visit(x)
        elif isinstance(n, ir.Expr):
            found.append(n)
            for f in dataclasses.fields(n):
                visit(getattr(n, f.name))

    visit(tuple(fields))
    return found


class _Annotator:
    def __init__(self, reading: set[str]):
        self.reading = reading
        self.env: dict[str, int] = {}
        self.outer: dict[str, int] = {}
        self.control = 0

    def function(self, fn: ir.Function) -> tuple[ir.Function, dict[str, int]]:
        body = self.block(fn.body)
        forward = dict(self.env)
        backward = fn.backward
        if backward is not None:
            self.outer, self.env, self.control = forward, {}, 0
            backward = dataclasses.replace(backward, body=self.block(backward.body))
        return dataclasses.replace(fn, body=body, backward=backward), forward

    # -- statements -----------------------------------------------------------------------------

    def bind(self, name: str, flags: int) -> None:
        self.env[name] = self.env.get(name, 0) | flags | self.control

    def block(self, stmts: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
        return tuple(self.stmt(s) for s in stmts)

    def stmt(self, s: ir.Stmt) -> ir.Stmt:
        if isinstance(s, ir.Assign):
            value = self.expr(s.value)
            if len(s.targets) == 1:
                self.bind(s.targets[0], value.prov)
            elif isinstance(value, ir.MakeTuple) and len(value.elems) == len(s.targets):
                for n, e in zip(s.targets, value.elems):
                    self.bind(n, e.prov)
            else:
                for n in s.targets:
                    self.bind(n, value.prov & ~ir.MUTABLE)
            return _rebuilt(s, value=value)
        if isinstance(s, ir.If):
            cond = self.expr(s.cond)
            saved = self.control
            self.control |= cond.prov & ir.ITEM
            then, orelse = self.block(s.then), self.block(s.orelse)
            self.control = saved
            return _rebuilt(s, cond=cond, then=then, orelse=orelse)
        if isinstance(s, ir.For):
            it = self.expr(s.iter)
            saved = self.control
            self.control |= it.prov & ir.ITEM
            for n in s.unpack or (s.var,):
                self.bind(n, it.prov & ~ir.MUTABLE)
            body = self.block(s.body)
            self.control = saved
            return _rebuilt(s, iter=it, body=body)
        if isinstance(s, ir.Return):
            return _rebuilt(s, values=tuple(self.expr(v) for v in s.values))
        if isinstance(s, ir.Raise) and s.message is not None:
            return _rebuilt(s, message=self.expr(s.message))
        if isinstance(s, ir.Refused) and s.value is not None:
            # the names of a statement refused for its form take its value's flags (for an
            # unpacking, an over-approximation: MUTABLE is kept)
            value = self.expr(s.value)
            for n in s.assigns:
                self.bind(n, value.prov)
            return _rebuilt(s, value=value)
        return s  # Declare, a Refused without value, a Raise without message

    # -- expressions ----------------------------------------------------------------------------

    def expr(self, e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.Comprehension):
            it = self.expr(e.iter)
            saved = dict(self.env)
            for n in e.unpack or (e.var,):
                self.env[n] = it.prov & ~ir.MUTABLE
            conds = tuple(self.expr(c) for c in e.conds)
            elt = self.expr(e.elt)
            self.env = saved
            return _rebuilt(e, iter=it, conds=conds, elt=elt,
                            prov=elt.prov | (e.prov & (ir.MUTABLE | ir.AS_TUPLE)))
        new = _rebuilt(e, **{n: self._child(getattr(e, n)) for n in _operands(type(e))})
        flags = self.flags(new)
        if e.prov & ir.AS_TUPLE:  # lowering's marks: what the source spells
            flags &= ~ir.MUTABLE
        return _rebuilt(new, prov=flags | (e.prov & (ir.MUTABLE | ir.AS_TUPLE)))

    def _child(self, v: Any) -> Any:
        if isinstance(v, ir.Expr):
            return self.expr(v)
        if isinstance(v, tuple):
            return tuple(self._child(x) for x in v)
        return v

    def flags(self, e: ir.Expr) -> int:
        """The flags of ``e``, its children's already set."""
        joined = 0
        for c in _children(e):
            joined |= c.prov
        if isinstance(e, ir.Name):
            return self.env.get(e.name, 0)
        if isinstance(e, ir.Saved):
            return self.outer.get(e.name, 0)
        if isinstance(e, ir.Call):
            if e.kind == "kernel":
                return ir.ITEM if e.type in (ir.INT, ir.FLOAT) else 0
            if e.kind == "op":
                return 0
            if e.kind == "helper":
                return (joined & ir.ITEM) | (ir.ITEM if e.name in self.reading else 0)
            if e.name in ("len", "range"):
                return joined & ir.ITEM
            return joined & ~ir.MUTABLE
        if isinstance(e, (ir.Index, ir.Slice)):
            return e.value.prov & ~ir.MUTABLE
        if isinstance(e, (ir.Meta, ir.Const, ir.DTypeConst, ir.ModuleConst, ir.FString)):
            return 0
        if isinstance(e, ir.IfExp):
            return e.then.prov | e.orelse.prov | (e.cond.prov & ir.ITEM)
        if isinstance(e, ir.MakeTuple):
            return joined
        if isinstance(e, (ir.Neg, ir.Not, ir.Compare, ir.IsNone)):
            return joined & ~ir.MUTABLE
        return joined  # Num, SeqOp, BoolOp, Unwrap, TensorOp


def _rebuilt(node: Any, **changes: Any) -> Any:
    """``node`` with ``changes``; ``node`` itself when they change nothing (most expressions
    have no provenance: the pass then copies next to nothing)."""
    if all(_same(getattr(node, k), v) for k, v in changes.items()):
        return node
    return dataclasses.replace(node, **changes)


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
            and all(x is y for x, y in zip(a, b)))


_OPERANDS: dict[type, tuple[str, ...]] = {}


def _operands(cls: type) -> tuple[str, ...]:
    """The fields of an expression class that may hold expressions."""
    if cls not in _OPERANDS:
        _OPERANDS[cls] = tuple(f.name for f in dataclasses.fields(cls)
                               if f.name not in ("loc", "type", "prov"))
    return _OPERANDS[cls]


def _children(e: ir.Expr):
    for name in _operands(type(e)):
        v = getattr(e, name)
        if isinstance(v, ir.Expr):
            yield v
        elif isinstance(v, tuple):
            yield from (x for x in v if isinstance(x, ir.Expr))
