"""Lower, names and types: the state of one function being lowered, the names it reads and the
conversions between types (part of the ``lower`` stage).

Input: a name read by a formula, helper or backward, or a lowered ``ir.Expr`` and the type the
context wants. Output: the ``ir.Expr`` of the name (a local, a capture of the forward recorded
for the node to save, a module constant), the value converted to the wanted type, or the type
both branches of a choice share. Errors are ``LowerError`` with a T4xx diagnostic.
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from . import ir, model
from .diagnostics import Diagnostic
from .lower_env import DTYPE_NAMES, LowerError, Program, Scope, diag, pretty


class NameLowerer:
    """Per-function state (scope, declared and assigned locals, captures, recovered errors),
    names, coercion and unification; ``lower_cond`` and ``lower_expr`` build on it."""

    def __init__(self, program: Program, mod: model.Module, name: str):
        self.program, self.mod, self.formula_name = program, mod, name
        self.scope = Scope()
        self.declared: set[str] = set()
        self.assigned: list[str] = []
        self.loop_vars: set[str] = set()
        self.captured: set[str] = set()  # names of the forward a backward has read
        self.return_type: ir.Type | None = None
        self.tensor_params: list | None = None
        self.returns_spelling = ""
        self.consts = {c.name: c.value for c in mod.constants}
        self.errors: list[Diagnostic] = []      # recovered errors (Note [Error recovery])
        self.poisoned: set[str] = set()

    def loc(self, node: cst.CSTNode) -> model.Loc:
        return self.mod.loc_of(node)

    def error(self, code: str, loc: model.Loc, message: str, hint: str) -> LowerError:
        return LowerError(diag(self.mod, code, loc, message, hint))

    # -- names --------------------------------------------------------------------------------

    def name(self, n: str, loc: model.Loc) -> ir.Expr:
        if n in self.poisoned:
            raise LowerError(None)
        s = self.scope
        if n in s.vars:
            return self._narrow(ir.Name(loc, s.vars[n], n), n in s.narrowed)
        if s.outer is not None and n in s.outer.vars:
            # what is saved, and how, is the front end's capture result (lower._saved); this
            # only remembers the read, for T405
            self.captured.add(n)
            # narrowed by a test in the forward (saved unwrapped) or in this backward
            narrowed = n in s.outer.narrowed or n in s.narrowed
            return self._narrow(ir.Saved(loc, s.outer.vars[n], n, "value"), narrowed)
        if n in self.consts:
            v = self.consts[n]
            t = ir.BOOL if isinstance(v, bool) else ir.INT if isinstance(v, int) else ir.FLOAT
            return ir.ModuleConst(loc, t, n)
        if n in ("True", "False"):
            return ir.Const(loc, ir.BOOL, n == "True")
        if n == "None":
            return ir.Const(loc, ir.NONE, None)
        if n in self.loop_vars:
            raise self.error("T406", loc, f"`{n}` is a loop variable read after its loop",
                             "copy it to another local inside the loop")
        raise self.error("T401", loc, f"`{n}` is not a local, parameter or module constant here",
                         "compute it in this function")

    @staticmethod
    def _narrow(e: ir.Expr, narrowed: bool) -> ir.Expr:
        if narrowed and e.type.is_optional:
            if not e.type.is_tensor:
                return ir.Unwrap(e.loc, e.type.inner, e)
            return dataclasses.replace(e, type=ir.TENSOR)
        return e

    # -- coercion -----------------------------------------------------------------------------

    def coerce(self, e: ir.Expr, want: ir.Type, what: str = "") -> ir.Expr:
        t = e.type
        if t == want:
            return e
        if want.is_tensor and t.is_tensor:
            return e
        if t == ir.NONE and (want.is_optional or want == ir.TENSOR_LIST):
            return ir.Const(e.loc, want, None)
        if want.is_optional and t != ir.NONE:
            return self.coerce(e, want.inner, what)
        if want == ir.FLOAT and t in (ir.INT, ir.BOOL) or want == ir.INT and t == ir.BOOL:
            return e
        if want == ir.DTYPE and isinstance(e, ir.Const) and e.value in DTYPE_NAMES:
            return ir.DTypeConst(e.loc, ir.DTYPE, e.value)
        if isinstance(e, ir.MakeTuple) and not e.elems and want in (ir.SHAPE, ir.TENSOR_LIST):
            return dataclasses.replace(e, type=want)
        if isinstance(e, ir.MakeTuple) and want == ir.TENSOR_LIST and all(
                x.type.is_tensor for x in e.elems):
            return dataclasses.replace(e, type=want)
        if want == ir.SHAPE and isinstance(e, ir.MakeTuple) and all(
                x.type in (ir.INT, ir.BOOL) for x in e.elems):
            return dataclasses.replace(e, type=want)
        raise self.error("T402", e.loc, f"{what or 'this value'} is a {pretty(t)} where a "
                         f"{pretty(want)} is expected", "convert it explicitly (int(), float(), "
                         "tuple(...)) or pass the right value")

    def unify(self, a: ir.Type, b: ir.Type, loc) -> ir.Type:
        if a == b:
            return a
        if a.is_tensor and b.is_tensor:
            return ir.OPT_TENSOR
        if ir.NONE in (a, b):
            other = b if a == ir.NONE else a
            return ir.OPT_TENSOR if other.is_tensor else ir.optional(other)
        if a.is_number and b.is_number:
            return ir.FLOAT if ir.FLOAT in (a, b) else ir.INT
        if a.is_optional and a.arg == b or b.is_optional and b.arg == a:
            return a if a.is_optional else b
        raise self.error("T402", loc, f"the two branches give a {pretty(a)} and a {pretty(b)}",
                         "make both branches the same type")

    def require_op(self, name: str, loc, what: str) -> str:
        if name not in self.program.formulas:
            raise self.error("T411", loc, f"`{what}` on tensors means ops.{name}, which no "
                             "formula module defines", f"define a formula `{name}`")
        return name
