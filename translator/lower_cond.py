"""Lower, conditions: truth values, ``and``/``or``/``not``, comparisons and conditional
expressions -> typed ``ir.Expr`` (part of the ``lower`` stage).

Input: a libcst expression in a boolean context or a comparison. Output: an ``ir.Expr`` of type
bool (or, for ``x if c else y``, the type both branches share). ``x is None`` tests also narrow
the Optionals known not None on each side of the test (``none_facts``). The truth value of a
tensor is its data, which translated code cannot branch on (T409).
"""

from __future__ import annotations

import libcst as cst

from . import ir
from .lower_env import pretty
from .lower_names import NameLowerer

_CMPOPS = {cst.LessThan: "lt", cst.LessThanEqual: "le", cst.GreaterThan: "gt",
           cst.GreaterThanEqual: "ge", cst.Equal: "eq", cst.NotEqual: "ne", cst.In: "in",
           cst.NotIn: "notin"}


class CondLowerer(NameLowerer):
    """Conditions and comparisons; ``lower_expr.ExprLowerer`` provides ``expr``."""

    def expr(self, node: cst.BaseExpression) -> ir.Expr:
        raise NotImplementedError  # ExprLowerer.expr

    def condition(self, node: cst.BaseExpression) -> ir.Expr:
        """An expression in a boolean context (if, not, and/or, x if c else y): its truth."""
        if isinstance(node, cst.BooleanOperation):
            return self.boolop(node, self.loc(node), condition=True)
        return self.truth(self.expr(node))

    def truth(self, e: ir.Expr) -> ir.Expr:
        t = e.type
        if t == ir.BOOL:
            return e
        if t.is_tensor:
            raise self.error("T409", e.loc, "the truth value of a tensor is its data, which the "
                             "translated code cannot branch on", "test `x is None` or metadata")
        if t in (ir.INT, ir.FLOAT):
            return ir.Compare(e.loc, ir.BOOL, "ne", e, ir.Const(e.loc, t, 0))
        if t in (ir.SHAPE, ir.TENSOR_LIST):
            n = ir.Call(e.loc, ir.INT, "builtin", "len", (e,))
            return ir.Compare(e.loc, ir.BOOL, "ne", n, ir.Const(e.loc, ir.INT, 0))
        raise self.error("T402", e.loc, f"the truth value of a {pretty(t)}",
                         "compare explicitly, e.g. `x is not None`")

    def boolop(self, node: cst.BooleanOperation, loc, condition: bool) -> ir.Expr:
        op = "and" if isinstance(node.operator, cst.And) else "or"
        left = self.condition(node.left) if condition else self.expr(node.left)
        then_f, else_f = self.none_facts(node.left)
        saved = set(self.scope.narrowed)
        self.scope.narrowed |= then_f if op == "and" else else_f
        right = self.condition(node.right) if condition else self.expr(node.right)
        self.scope.narrowed = saved
        for side in (left, right):
            if side.type != ir.BOOL:
                raise self.error("T402", side.loc, f"`{op}` of a {pretty(side.type)} returns "
                                 "one of its operands, not a bool", "use it in a condition, or "
                                 "write `x if x is not None else y`")
        values: list[ir.Expr] = []
        for side in (left, right):
            values.extend(side.values if isinstance(side, ir.BoolOp) and side.op == op else [side])
        return ir.BoolOp(loc, ir.BOOL, op, tuple(values))

    def none_facts(self, node: cst.BaseExpression) -> tuple[set[str], set[str]]:
        """Optionals known not None when ``node`` is true, and when it is false."""
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1 and isinstance(
                node.left, cst.Name):
            c = node.comparisons[0]
            if isinstance(c.comparator, cst.Name) and c.comparator.value == "None":
                n = {node.left.value}
                if isinstance(c.operator, cst.IsNot):
                    return n, set()
                if isinstance(c.operator, cst.Is):
                    return set(), n
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            t, f = self.none_facts(node.expression)
            return f, t
        if isinstance(node, cst.BooleanOperation):
            lt, lf = self.none_facts(node.left)
            rt, rf = self.none_facts(node.right)
            return (lt | rt, set()) if isinstance(node.operator, cst.And) else (set(), lf | rf)
        return set(), set()

    def compare(self, node: cst.Comparison, loc) -> ir.Expr:
        parts: list[ir.Expr] = []
        left = self.expr(node.left)
        for c in node.comparisons:
            if isinstance(c.operator, (cst.Is, cst.IsNot)):
                if not (isinstance(c.comparator, cst.Name) and c.comparator.value == "None"):
                    raise self.error("T401", loc, "`is` compares only with None",
                                     "use `==` for values")
                base = left.value if isinstance(left, ir.Unwrap) else left
                if not (base.type.is_tensor or base.type.is_optional or base.type == ir.NONE):
                    raise self.error("T402", loc, f"a {pretty(base.type)} is never None",
                                     "remove the test")
                parts.append(ir.IsNone(loc, ir.BOOL, base, isinstance(c.operator, cst.IsNot)))
                continue
            op = _CMPOPS.get(type(c.operator))
            right = self.expr(c.comparator)
            if op is None:
                raise self.error("T401", loc, "this comparison cannot be translated",
                                 "use < <= > >= == != in")
            parts.append(self._compare1(op, left, right, loc, len(node.comparisons) > 1))
            left = right
        return parts[0] if len(parts) == 1 else ir.BoolOp(loc, ir.BOOL, "and", tuple(parts))

    def _compare1(self, op: str, left: ir.Expr, right: ir.Expr, loc, chained: bool) -> ir.Expr:
        lt, rt = left.type, right.type
        if lt.is_tensor or rt.is_tensor:
            if chained or op in ("in", "notin"):
                raise self.error("T409", loc, "chained or `in` comparisons of tensors",
                                 "compare two values at a time and combine with ops")
            return ir.TensorOp(loc, ir.TENSOR, self.require_op(op, loc, op), (left, right))
        if op in ("in", "notin"):
            if rt != ir.SHAPE or not lt.is_number:
                raise self.error("T402", loc, "`in` tests an int in a shape or dims tuple",
                                 "test membership in a Shape/Dims")
            return ir.Compare(loc, ir.BOOL, op, left, right)
        if lt == ir.DTYPE or rt == ir.DTYPE:
            left, right = self.coerce(left, ir.DTYPE), self.coerce(right, ir.DTYPE)
        ok = (lt.is_number and rt.is_number) or (op in ("eq", "ne") and (
            left.type == right.type or {lt.kind, rt.kind} == {"Shape"}))
        if not ok:
            raise self.error("T402", loc, f"cannot compare a {pretty(lt)} with a {pretty(rt)}",
                             "compare values of the same type")
        if (isinstance(left, ir.Name) and isinstance(right, ir.Name) and left.name == right.name
                and lt in (ir.INT, ir.BOOL)):
            # an int compared with itself: C++ compilers reject the self-comparison
            # (-Wtautological-compare under -Werror); its value is known (floats: NaN, kept)
            return ir.Const(loc, ir.BOOL, op in ("eq", "le", "ge"))
        return ir.Compare(loc, ir.BOOL, op, left, right)

    def ifexp(self, node: cst.IfExp, loc) -> ir.Expr:
        cond = self.condition(node.test)
        then_f, else_f = self.none_facts(node.test)
        saved = set(self.scope.narrowed)
        self.scope.narrowed = saved | then_f
        then = self.expr(node.body)
        self.scope.narrowed = saved | else_f
        orelse = self.expr(node.orelse)
        self.scope.narrowed = saved
        t = self.unify(then.type, orelse.type, loc)
        return ir.IfExp(loc, t, cond, self.coerce(then, t), self.coerce(orelse, t))
