"""Lower: checked model modules (libcst inside) -> typed IR modules.

Stage 1 of the back end, and the only back-end stage that reads libcst. Input: every formula
module of the program (``model.Module``), lowered together so that ``ops.NAME`` calls are
checked against every formula's signature and ``kernel.NAME`` calls against
``signatures.KERNELS``. Output: one ``ir.Module`` per input module, in the same order.

Invariants: Python semantics are kept exactly (Note [Python semantics in the IR]); every local
has one type (``None`` then a tensor is an Optional[Tensor]); whatever C++ could not express
the same way is a ``T4xx`` diagnostic at the formula's line, every one of the program reported
together (Note [Error recovery]: a failed statement is skipped and the names it assigns are
poisoned, so later reads of them add no cascade of errors). Expressions are lowered by ``lower_expr.ExprLowerer``; this module walks
statements, functions and modules.

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
from .lower_env import LowerError, Program, Scope, parse_type
from .lower_expr import ExprLowerer
from .syntax import target_names

_ERRORS = {"ValueError", "IndexError", "TypeError", "RuntimeError"}


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


class FunctionLowerer(ExprLowerer):
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
        visible = [o for o in f.outputs if o not in opts.hidden_outputs]
        diff = list(visible if opts.differentiable_outputs is None
                    else [o for o in visible if o in opts.differentiable_outputs])
        slots = diff + [o for o in f.outputs if o in opts.hidden_outputs]
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
        self.captures = {}
        bbody = self.block(_suite(bw.body), top=True)
        saved, bbody = self._saved(forward_scope, set(f.outputs), bbody, bw.loc)
        backward = ir.BackwardFn(tuple(bw.params), saved, bbody, bw.loc)
        ret = ir.TENSOR if len(visible) == 1 else ir.tuple_of(*[ir.TENSOR] * len(visible))
        return ir.Function(f.name, "formula", params, ret, body, f.loc, tuple(outputs), backward,
                           opts.once_differentiable, opts.materialize_grads, f.doc)

    def _saved(self, fscope: Scope, outputs: set[str], body, loc):
        """The node's members from what the backward read, and the body rewritten to use
        metadata-only captures (``x.shape`` of a tensor read only for its metadata)."""
        saved, meta_only = [], {}
        def order(item):
            bound = item[1][2]
            return (bound.line, bound.col) if bound is not None else (0, 0)

        for name, (full, attrs, bound) in sorted(self.captures.items(), key=order):
            t = fscope.vars[name]
            if t.is_tensor or t == ir.TENSOR_LIST:
                storage = "output" if name in outputs else "input"
                if not full and t != ir.TENSOR_LIST:
                    attrs = tuple(sorted(attrs | ({"defined"} if t.is_optional else set())))
                    saved.append(ir.SavedValue(name, "meta", t, attrs, loc=bound))
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

        return tuple(saved), tuple(transform(s, rewrite) for s in body)

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
                default = self.coerce(self.expr(p.default), t)
            out.append(ir.Param(p.name, t, default, p.loc))
            self.scope.vars[p.name] = t
            self.scope.bound[p.name] = p.loc
            self.scope.params.add(p.name)
            self.declared.add(p.name)
        return tuple(out)

    # -- statements -------------------------------------------------------------------------

    def block(self, stmts: Sequence[cst.BaseStatement], top: bool = False) -> tuple[ir.Stmt, ...]:
        """Statements of a block. At the top level, a local first assigned inside a compound
        statement is declared just before it (C++ scoping); nested blocks never declare."""
        out: list[ir.Stmt] = []
        for stmt in stmts:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    out.extend(self.recover(small, top))
                continue
            before = list(self.assigned)
            try:
                lowered = self.compound(stmt)
            except LowerError as e:
                self.record(e, stmt)
                continue
            if top:
                new = [n for n in self.assigned if n not in before and n not in self.declared]
                for n in dict.fromkeys(new):
                    out.append(ir.Declare(self.loc(stmt), n, self.scope.vars[n]))
                    self.declared.add(n)
            out.append(lowered)
        return tuple(out)

    def recover(self, small: cst.BaseSmallStatement, top: bool) -> list[ir.Stmt]:
        """Lower one statement; on an error, record it and go on with the next statement
        (Note [Error recovery])."""
        try:
            return self.small(small, top)
        except LowerError as e:
            self.record(e, small)
            return []

    def record(self, e: LowerError, node: cst.CSTNode) -> None:
        """Note [Error recovery]: the names a failed statement assigns are *poisoned*: reading
        one later fails silently, so one mistake gives one diagnostic, not a cascade."""
        if e.diagnostic is not None:
            self.errors.append(e.diagnostic)
        self.poisoned.update(_assigned_names(node))

    def small(self, s: cst.BaseSmallStatement, top: bool) -> list[ir.Stmt]:
        loc = self.loc(s)
        if isinstance(s, cst.Pass):
            return []
        if isinstance(s, cst.Expr):
            if isinstance(s.value, (cst.SimpleString, cst.ConcatenatedString)):
                return []  # a docstring or a comment string
            raise self.error("T401", loc, "an expression statement does nothing in a formula",
                             "assign its value or remove it")
        if isinstance(s, cst.Assign):
            if len(s.targets) != 1:
                raise self.error("T401", loc, "chained assignment `a = b = ...` is not supported",
                                 "assign each name separately")
            return [self.assign(s.targets[0].target, self.expr(s.value), loc, top)]
        if isinstance(s, cst.AnnAssign) and s.value is not None:
            return [self.assign(s.target, self.expr(s.value), loc, top)]
        if isinstance(s, cst.AugAssign):
            op = _AUG.get(type(s.operator))
            if op is None:
                raise self.error("T401", loc, "bitwise augmented assignment cannot be translated",
                                 "use arithmetic")
            value = self.binary(op, self.expr(s.target), self.expr(s.value), loc)
            return [self.assign(s.target, value, loc, top)]
        if isinstance(s, cst.Return):
            return [self.ret(s, loc)]
        if isinstance(s, cst.Raise):
            return [self.raise_(s, loc)]
        raise self.error("T401", loc, f"`{type(s).__name__}` statements cannot be translated",
                         "use assignments, if/else, for over range() or a shape, return")

    def assign(self, target: cst.BaseExpression, value: ir.Expr, loc, top: bool) -> ir.Stmt:
        if isinstance(target, cst.Name):
            names, types = [target.value], [value.type]
        elif isinstance(target, (cst.Tuple, cst.List)) and all(
                isinstance(e.value, cst.Name) for e in target.elements):
            names = [e.value.value for e in target.elements]  # type: ignore[attr-defined]
            if value.type.kind != "Tuple" or len(value.type.elems) != len(names):
                raise self.error("T402", loc, f"cannot unpack {value.type} into {len(names)} names",
                                 "unpack only the tuple an op or kernel returns")
            types = list(value.type.elems)
        else:
            raise self.error("T401", loc, "only names (or a tuple of names) can be assigned",
                             "assign to a local name")
        declare = []
        for n, t in zip(names, types):
            self.bind(n, t, loc)
            if n not in self.declared and top:
                declare.append(n)
                self.declared.add(n)
        if len(names) == 1:
            value = self.coerce(value, self.scope.vars[names[0]])
        return ir.Assign(loc, tuple(names), value, tuple(declare))

    def bind(self, name: str, t: ir.Type, loc) -> None:
        if t == ir.NONE:
            t = ir.OPT_TENSOR
        if name in self.captures:
            raise self.error("T405", loc, f"the backward assigns `{name}` after reading the "
                             f"forward's `{name}`: in Python that read would fail "
                             "(UnboundLocalError)", "give the backward's local another name")
        old = self.scope.vars.get(name)
        if old is None:
            self.scope.vars[name] = t
            self.scope.bound[name] = loc
        elif old == t or (old.is_optional and (t == old.arg or t == ir.NONE)):
            pass
        elif old.is_tensor and t.is_tensor:
            self.scope.vars[name] = ir.OPT_TENSOR if old.is_optional or t.is_optional else old
        elif old.kind == "float" and t.kind in ("int", "bool"):
            pass  # an int stored in a float local reads the same (C++ converts)
        else:
            raise self.error("T405", loc, f"`{name}` is a {old} here but was bound to a {t} "
                             "earlier; a C++ local has one type", "use a new name for the new value")
        if t != ir.NONE and t == self.scope.vars[name].arg:
            self.scope.narrowed.add(name)
        elif t.is_optional or t == ir.NONE:
            self.scope.narrowed.discard(name)
        self.assigned.append(name)

    def compound(self, stmt: cst.BaseStatement) -> ir.Stmt:
        loc = self.loc(stmt)
        if isinstance(stmt, cst.If):
            return self.if_(stmt, loc)
        if isinstance(stmt, cst.For):
            return self.for_(stmt, loc)
        raise self.error("T401", loc, f"`{type(stmt).__name__}` cannot be translated",
                         "use if/else or a for loop over range() or a shape")

    def if_(self, stmt: cst.If, loc) -> ir.Stmt:
        cond = self.condition(stmt.test)
        then_facts, else_facts = self.none_facts(stmt.test)
        saved = set(self.scope.narrowed)
        self.scope.narrowed = saved | then_facts
        then = self.block(_suite(stmt.body))
        then_narrow, then_exits = set(self.scope.narrowed), _exits(then)
        self.scope.narrowed = saved | else_facts
        orelse: tuple[ir.Stmt, ...] = ()
        if isinstance(stmt.orelse, cst.If):
            orelse = (self.if_(stmt.orelse, self.loc(stmt.orelse)),)
        elif isinstance(stmt.orelse, cst.Else):
            orelse = self.block(_suite(stmt.orelse.body))
        else_narrow, else_exits = set(self.scope.narrowed), _exits(orelse)
        if then_exits and not else_exits:
            self.scope.narrowed = else_narrow
        elif else_exits and not then_exits:
            self.scope.narrowed = then_narrow
        else:
            self.scope.narrowed = then_narrow & else_narrow
        return ir.If(loc, cond, then, orelse)

    def for_(self, stmt: cst.For, loc) -> ir.Stmt:
        if stmt.orelse is not None:
            raise self.error("T401", loc, "`for ... else` cannot be translated",
                             "move the else part after the loop")
        it = self.iterable(stmt.iter)
        var, vtype, unpack, types = self.loop_target(stmt.target, it, loc)
        names = unpack or (var,)
        self.declared.update(names)
        narrowed = set(self.scope.narrowed)
        body = self.block(_suite(stmt.body))
        self.scope.narrowed = narrowed
        for n in names:
            del self.scope.vars[n]
            self.declared.discard(n)
            self.loop_vars.add(n)
        return ir.For(loc, var, vtype, it, body, unpack, types)

    def ret(self, s: cst.Return, loc) -> ir.Stmt:
        if self.return_type is not None or self.tensor_params is None:
            # a helper, or a composite's early return
            if s.value is None:
                raise self.error("T401", loc, "a bare `return` has no value", "return a value")
            value = self.expr(s.value)
            rt = self.return_type or self.function_return_type(self.returns_spelling, value, loc)
            return ir.Return(loc, (self.coerce(value, rt),))
        # a backward: one entry per Tensor parameter
        n = len(self.tensor_params)
        node = s.value
        if node is None:
            raise self.error("T407", loc, "a bare `return` in a backward",
                             "return one gradient (or None) per tensor parameter")
        elems = [node] if n == 1 else (
            [e.value for e in node.elements] if isinstance(node, cst.Tuple) else None)
        if elems is None or len(elems) != n:
            got = "a single value" if elems is None else f"{len(elems)} values"
            raise self.error("T407", loc, f"backward returns {got} but `{self.formula_name}` has "
                             f"{n} tensor parameter(s): "
                             f"{', '.join(p.name for p in self.tensor_params)}",
                             "return a tuple with one gradient (or None) per tensor parameter")
        values = []
        for p, e in zip(self.tensor_params, elems):
            v = self.expr(e)
            want = ir.TENSOR_LIST if p.type == ir.TENSOR_LIST else ir.OPT_TENSOR
            if v.type == ir.NONE:
                v = ir.Const(v.loc, want, None)
            values.append(self.coerce(v, want))
        return ir.Return(loc, tuple(values))

    def raise_(self, s: cst.Raise, loc) -> ir.Stmt:
        exc = s.exc
        if isinstance(exc, cst.Call) and isinstance(exc.func, cst.Name) and (
                exc.func.value in _ERRORS) and len(exc.args) <= 1:
            msg = self.expr(exc.args[0].value) if exc.args else None
            if msg is not None and msg.type != ir.STR:
                raise self.error("T402", loc, "the message of an exception must be a string",
                                 "raise ValueError(f\"...\")")
            return ir.Raise(loc, exc.func.value, msg)
        raise self.error("T401", loc, "only `raise ValueError/IndexError/TypeError/RuntimeError"
                         "(message)` can be translated", "raise one of those with a message")


_AUG = {cst.AddAssign: "add", cst.SubtractAssign: "sub", cst.MultiplyAssign: "mul",
        cst.DivideAssign: "truediv", cst.FloorDivideAssign: "floordiv", cst.ModuloAssign: "mod",
        cst.PowerAssign: "pow", cst.MatrixMultiplyAssign: "matmul"}


def _exits(stmts: Sequence[ir.Stmt]) -> bool:
    """True when every path through ``stmts`` returns or raises."""
    for s in stmts:
        if isinstance(s, (ir.Return, ir.Raise)):
            return True
        if isinstance(s, ir.If) and _exits(s.then) and _exits(s.orelse):
            return True
    return False


def _assigned_names(node: cst.CSTNode) -> set[str]:
    names: set[str] = set()

    class _Targets(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            names.update(target_names(n.target))

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            names.update(target_names(n.target))

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            names.update(target_names(n.target))

    node.visit(_Targets())
    return names


def _suite(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    """The statements of a block; ``if c: return x`` on one line is one simple statement."""
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    assert isinstance(suite, cst.SimpleStatementSuite)
    return [cst.SimpleStatementLine(body=suite.body)]


def _body(fn: cst.FunctionDef) -> list[cst.BaseStatement]:
    body = _suite(fn.body)
    if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(
            body[0].body[0], cst.Expr) and isinstance(body[0].body[0].value, cst.SimpleString):
        body = body[1:]
    return body


