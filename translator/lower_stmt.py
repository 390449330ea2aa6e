"""Lower, statements: libcst statements -> ``ir.Stmt`` (part of the ``lower`` stage).

Input: the statements of one function (forward, backward, composite or helper) and the state
``lower`` set up for it (scope, declared locals, return type, tensor parameters). Output: a
tuple of ``ir.Stmt``; a local first assigned inside a compound statement at the top level is
declared just before it (C++ scoping). Expressions are lowered by ``lower_expr.ExprLowerer``,
which this class extends. Errors: a failed statement is recorded and skipped, the names it
assigns poisoned (Note [Error recovery], lower.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from . import ir
from .lower_env import LowerError
from .lower_expr import ExprLowerer
from .subset import EXCEPTIONS
from .syntax import target_names


class StmtLowerer(ExprLowerer):
    """Lowers the statements of one function; ``lower.FunctionLowerer`` sets up its state."""

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
        if name in self.captured:
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
                             "earlier; a C++ local has one type",
                             "use a new name for the new value")
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
        then = self.block(block_statements(stmt.body))
        then_narrow, then_exits = set(self.scope.narrowed), _exits(then)
        self.scope.narrowed = saved | else_facts
        orelse: tuple[ir.Stmt, ...] = ()
        if isinstance(stmt.orelse, cst.If):
            orelse = (self.if_(stmt.orelse, self.loc(stmt.orelse)),)
        elif isinstance(stmt.orelse, cst.Else):
            orelse = self.block(block_statements(stmt.orelse.body))
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
        body = self.block(block_statements(stmt.body))
        self.scope.narrowed = narrowed
        rebound = [t for st in _walk_stmts(body) if isinstance(st, ir.Assign)
                   for t in st.targets if t in names]
        if rebound:
            raise self.error("T401", loc, f"the loop variable `{rebound[0]}` is re-bound inside "
                             "its loop, which the compiled engine cannot express",
                             "assign the new value to another name")
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
                exc.func.value in EXCEPTIONS) and len(exc.args) <= 1:
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


def block_statements(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    """The statements of a block; ``if c: return x`` on one line is one simple statement."""
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    assert isinstance(suite, cst.SimpleStatementSuite)
    return [cst.SimpleStatementLine(body=suite.body)]


def _walk_stmts(stmts: Sequence[ir.Stmt]):
    """Every statement of ``stmts``, nested ones included."""
    for st in stmts:
        yield st
        for child in (getattr(st, "then", ()), getattr(st, "orelse", ()), getattr(st, "body", ())):
            if isinstance(child, tuple):
                yield from _walk_stmts(child)
