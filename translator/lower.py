"""Lower: checked model modules (libcst inside) -> typed IR modules.

Stage 1 of the back end, and the only back-end stage that reads libcst. Input: every formula
module of the program (``model.Module``), lowered together so that ``ops.NAME`` calls are
checked against every formula's signature and ``kernel.NAME`` calls against
``signatures.KERNELS``. Output: one ``ir.Module`` per input module, in the same order.

Invariants: Python semantics are kept exactly (Note [Python semantics in the IR]); every local
has one type (``None`` then a tensor is an Optional[Tensor]); whatever C++ could not express
the same way is a ``T4xx`` diagnostic at the formula's line, every one of the program reported
together (Note [Error recovery]: a failed statement is skipped and the names it assigns are
poisoned, so later reads of them add no cascade of errors). This module lowers modules and
functions (parameters, outputs, what the node saves); statements are lowered by
``lower_stmt.StmtLowerer``, expressions by ``lower_expr.ExprLowerer``.

Note [Python semantics in the IR]
``//``, ``%``, ``/`` and ``**`` on numbers become ``ir.Num`` with the Python operator's name,
which the emitter maps to ``tg::py`` helpers; indexing and slicing of shapes become
``ir.Index``/``ir.Slice`` (negative indices, IndexError); ``and``/``or`` stay ``ir.BoolOp``
(short-circuit); int ** int is an int only when the exponent is a non-negative literal.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from . import ir, model
from .diagnostics import TranslatorError
from .ir import transform
from .lower_call import value_expr
from .lower_env import LowerError, Program, Scope, parse_type
from .lower_stmt import StmtLowerer, block_statements


def lower_modules(modules: Sequence[model.Module]) -> tuple[ir.Module, ...]:
    """Lower every module of the program; raises TranslatorError with all T4xx diagnostics."""
    out, diags = lower_program(modules)
    if diags:
        raise TranslatorError(diags)
    return out


def lower_program(modules: Sequence[model.Module]) -> tuple[tuple[ir.Module, ...], list]:
    """Lower every module; the IR of each (partial where it had errors) and all diagnostics."""
    program = Program.build(modules)
    out, diags = [], []
    for mod in modules:
        lowered, errors = _lower_module(program, mod)
        out.append(lowered)
        diags.extend(errors)
    diags.extend(program.diagnostics)
    return tuple(out), diags


def _lower_module(program: Program, mod: model.Module):
    errors = []
    consts = tuple(ir.ConstDef(c.name, _const_type(c.value), c.value, c.loc)
                   for c in mod.constants)
    helpers, functions = [], []
    entities: list[model.Helper | model.Formula] = [*mod.helpers, *mod.formulas]
    for entity in entities:
        lw = FunctionLowerer(program, mod, entity.name)
        try:
            if isinstance(entity, model.Helper):
                helpers.append(lw.helper(entity))
            else:
                functions.append(lw.formula(entity))
        except LowerError as e:
            if e.diagnostic is not None:
                lw.errors.append(e.diagnostic)
        errors.extend(lw.errors)
    return ir.Module(mod.name, mod.path, consts, tuple(helpers), tuple(functions)), errors


def _const_type(value) -> ir.Type:
    return ir.BOOL if isinstance(value, bool) else ir.INT if isinstance(value, int) else ir.FLOAT


class FunctionLowerer(StmtLowerer):
    """Lowers the statements of one formula (forward and backward), composite or helper."""

    def formula(self, f: model.Formula) -> ir.Function:
        self.returns_spelling = f.returns
        params = self._params(f.params)
        if f.composite:
            if f.result is None:
                raise self.error("T401", f.loc, f"formula `{f.name}` has neither a backward nor a "
                                 "returned expression", "end it with `return result, backward`")
            body = self.block(f.forward, top=True)
            value = self.expr(f.result)
            ret = self.function_return_type(f.returns, value, f.loc)
            body = body + (ir.Return(self.loc(f.result), (self.coerce(value, ret),)),)
            return ir.Function(f.name, "composite", params, ret, body, f.loc, doc=f.doc)
        return self._differentiable(f, params)

    def helper(self, h: model.Helper) -> ir.Function:
        params = self._params(h.params)
        ret = parse_type(h.returns)
        if ret is None:
            raise self.error("T413", h.loc, f"helper `{h.name}` needs a return annotation "
                             f"the C++ function can use (got `{h.returns or 'none'}`)",
                             "annotate it: -> Tensor, -> int, -> float, -> bool, -> Shape")
        self.return_type = ret
        body = self.block(tuple(_body(h.node)), top=True)
        return ir.Function(h.name, "helper", params, ret, body, h.loc, doc=h.doc)

    # -- differentiable formulas -----------------------------------------------------------

    def _differentiable(self, f: model.Formula, params) -> ir.Function:
        bw = f.backward
        assert bw is not None
        body = self.block(f.forward, top=True)
        forward_scope = self.scope
        opts = f.options
        visible, slots = f.visible_outputs, list(f.grad_slots)
        outputs = []
        for name in f.outputs:
            if name in self.poisoned:
                raise LowerError(None)
            t = forward_scope.vars.get(name)
            if t is None or not t.is_tensor:
                raise self.error("T412", f.loc, f"output `{name}` of `{f.name}` is not a tensor "
                                 f"local of the forward ({t or 'unbound'})",
                                 "return tensors computed in the forward")
            if name in forward_scope.params:
                raise self.error("T412", f.loc, f"output `{name}` of `{f.name}` is a parameter: "
                                 "an output must be a fresh tensor",
                                 f"return kernel.clone({name}) (or a view kernel of it)")
            outputs.append(ir.Output(name, slots.index(name) if name in slots else None,
                                     name in opts.hidden_outputs))
        if len(bw.params) != len(slots):
            raise self.error("T407", bw.loc, f"backward takes {len(bw.params)} grads but "
                             f"`{f.name}` has {len(slots)} differentiable and hidden outputs "
                             f"({', '.join(slots)})", "take one grad per output in that order")
        self.return_type = None
        self.tensor_params = [p for p in params if p.type.is_tensor or p.type == ir.TENSOR_LIST]
        self.scope = Scope(vars={g: ir.TENSOR for g in bw.params}, params=set(bw.params),
                           outer=forward_scope)
        self.declared = set(bw.params)
        self.captured = set()
        bbody = self.block(block_statements(bw.body), top=True)
        saved, bbody = self._saved(forward_scope, set(f.outputs), bbody, bw.loc, bw.captures)
        backward = ir.BackwardFn(tuple(bw.params), saved, bbody, bw.loc)
        ret = ir.TENSOR if len(visible) == 1 else ir.tuple_of(*[ir.TENSOR] * len(visible))
        return ir.Function(f.name, "formula", params, ret, body, f.loc, tuple(outputs), backward,
                           opts.once_differentiable, opts.materialize_grads, f.doc)

    def _saved(self, fscope: Scope, outputs: set[str], body, loc, captures):
        """The node's members from the front end's captures (``collect_captures``, the one
        analysis of what a backward reads), and the body rewritten to use metadata-only
        captures (``x.shape`` of a tensor read only for its metadata)."""
        saved, meta_only = [], {}
        for c in sorted(captures, key=lambda c: (c.bound_at.line, c.bound_at.col)):
            name, bound = c.name, c.bound_at
            t = fscope.vars.get(name)
            if t is None:  # the forward failed to bind it: its error is already recorded
                continue
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
                narrowed = name in fscope.narrowed and t.is_optional
                st = t.inner if narrowed else t
                saved.append(ir.SavedValue(name, "attribute", st, unwrap=narrowed, loc=bound))

        def rewrite(e):
            if isinstance(e, ir.Meta) and isinstance(e.value, ir.Saved) and (
                    e.value.name in meta_only):
                return ir.Saved(e.loc, e.type, e.value.name, e.attr)
            if isinstance(e, ir.IsNone) and isinstance(e.value, ir.Saved) and (
                    e.value.name in meta_only):
                defined = ir.Saved(e.loc, ir.BOOL, e.value.name, "defined")
                return defined if e.negate else ir.Not(e.loc, ir.BOOL, defined)
            return e

        body = tuple(transform(s, rewrite) for s in body)

        def whole_read(e):
            if isinstance(e, ir.Saved) and e.what == "value" and e.name in meta_only:
                raise AssertionError(f"{e.loc}: `{e.name}` is saved as metadata only (front end's "
                                     "captures) but the backward reads its value")
            return e

        for s in body:
            transform(s, whole_read)
        return tuple(saved), body

    def _default(self, p: model.Param) -> ir.Expr:
        """A parameter's default as a constant: a literal as written, a module constant or
        constant arithmetic folded to the value parse found (bindings take constants only)."""
        assert p.default is not None
        v = p.default_value
        if isinstance(v, (int, float)):  # bool included; exact even where C++ would overflow
            t = ir.BOOL if isinstance(v, bool) else ir.INT if isinstance(v, int) else ir.FLOAT
            return value_expr(v, t, self.loc(p.default))
        e = self.expr(p.default)
        if isinstance(e, (ir.Const, ir.DTypeConst)) or isinstance(e, ir.MakeTuple) and all(
                isinstance(x, ir.Const) for x in e.elems):
            return e
        if p.default_value is None:
            raise self.error("T401", self.loc(p.default), f"the default of `{p.name}` is not a "
                             "constant the compiled engine can bind",
                             "use a literal, a module constant, or arithmetic on them")
        return value_expr(p.default_value, e.type, self.loc(p.default))

    def _params(self, params: Sequence[model.Param]) -> tuple[ir.Param, ...]:
        out = []
        for p in params:
            t = parse_type(p.type)
            if t is None:
                raise self.error("T413", p.loc, f"parameter `{p.name}` has type `{p.type}`, "
                                 "which the compiled engine cannot take",
                                 "use Tensor, Optional[Tensor], Sequence[Tensor], int, float, "
                                 "bool, Scalar, Shape, Dims, DType or Optional[...] of these")
            default = None
            if p.default is not None:
                default = self.coerce(self._default(p), t)
            out.append(ir.Param(p.name, t, default, p.loc))
            self.scope.vars[p.name] = t
            self.scope.bound[p.name] = p.loc
            self.scope.params.add(p.name)
            self.declared.add(p.name)
        return tuple(out)


def _body(fn: cst.FunctionDef) -> list[cst.BaseStatement]:
    body = block_statements(fn.body)
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(
            body[0].body[0], cst.Expr) and isinstance(body[0].body[0].value, cst.SimpleString):
        body = body[1:]
    return body
