"""Lower, expressions: libcst expressions -> typed ``ir.Expr`` (part of the ``lower`` stage).

Input: one libcst expression of a formula, the program's signatures (``Program``) and the
current ``Scope``. Output: an ``ir.Expr`` whose ``type`` is known. Types follow Python: ``/``
is a float, int op float is a float, int ** int is an int only for a non-negative literal
exponent (Note [Python semantics in the IR], lower.py); operators on tensors follow the
ARCHITECTURE operator/scalar rule. Errors are ``LowerError`` with a T4xx diagnostic
(Note [Back-end codes] in lower_env.py).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import libcst as cst

from . import ir, model
from .diagnostics import Diagnostic
from .lower_env import DTYPE_NAMES, LowerError, Program, Scope, diag, parse_type, pretty

_BINOPS = {cst.Add: "add", cst.Subtract: "sub", cst.Multiply: "mul", cst.Divide: "truediv",
           cst.FloorDivide: "floordiv", cst.Modulo: "mod", cst.Power: "pow",
           cst.MatrixMultiply: "matmul"}
_TENSOR_BINOP = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "matmul": "matmul"}
_CMPOPS = {cst.LessThan: "lt", cst.LessThanEqual: "le", cst.GreaterThan: "gt",
           cst.GreaterThanEqual: "ge", cst.Equal: "eq", cst.NotEqual: "ne", cst.In: "in",
           cst.NotIn: "notin"}
_MATH_CONSTS = {"pi": 3.141592653589793, "e": 2.718281828459045, "tau": 6.283185307179586,
                "inf": float("inf"), "nan": float("nan")}
class ExprLowerer:
    def __init__(self, program: Program, mod: model.Module, name: str):
        self.program, self.mod, self.formula_name = program, mod, name
        self.scope = Scope()
        self.declared: set[str] = set()
        self.assigned: list[str] = []
        self.loop_vars: set[str] = set()
        self.captures: dict[str, list] = {}
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

    def name(self, n: str, loc: model.Loc, use: str = "value") -> ir.Expr:
        if n in self.poisoned:
            raise LowerError(None)
        s = self.scope
        if n in s.vars:
            return self._narrow(ir.Name(loc, s.vars[n], n), n in s.narrowed)
        if s.outer is not None and n in s.outer.vars:
            entry = self.captures.setdefault(n, [False, set(), s.outer.bound.get(n)])
            if use == "value":
                entry[0] = True
            else:
                entry[1].add("defined" if use == "none" else use)
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
            return ir.Unwrap(e.loc, e.type.inner, e) if not e.type.is_tensor else dataclasses.replace(
                e, type=ir.TENSOR)
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

    # -- expressions --------------------------------------------------------------------------

    def expr(self, node: cst.BaseExpression) -> ir.Expr:
        loc = self.loc(node)
        if isinstance(node, cst.Integer):
            return ir.Const(loc, ir.INT, int(node.evaluated_value))
        if isinstance(node, cst.Float):
            return ir.Const(loc, ir.FLOAT, float(node.evaluated_value))
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            return ir.Const(loc, ir.STR, str(node.evaluated_value))
        if isinstance(node, cst.FormattedString):
            return self.fstring(node, loc)
        if isinstance(node, cst.Name):
            return self.name(node.value, loc)
        if isinstance(node, cst.Attribute):
            return self.attribute(node, loc)
        if isinstance(node, cst.Call):
            from .lower_call import lower_call
            return lower_call(self, node, loc)
        if isinstance(node, cst.BinaryOperation):
            op = _BINOPS.get(type(node.operator))
            if op is None:
                raise self.error("T401", loc, "bitwise operators cannot be translated",
                                 "use arithmetic or comparisons")
            return self.binary(op, self.expr(node.left), self.expr(node.right), loc)
        if isinstance(node, cst.UnaryOperation):
            return self.unary(node, loc)
        if isinstance(node, cst.BooleanOperation):
            return self.boolop(node, loc, condition=False)
        if isinstance(node, cst.Comparison):
            return self.compare(node, loc)
        if isinstance(node, cst.IfExp):
            return self.ifexp(node, loc)
        if isinstance(node, cst.Subscript):
            return self.subscript(node, loc)
        if isinstance(node, (cst.Tuple, cst.List)):
            return self.make_tuple([e.value for e in node.elements], loc, node, isinstance(
                node, cst.List))
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            return self.comprehension(node, loc)
        raise self.error("T401", loc, f"`{type(node).__name__}` expressions cannot be translated",
                         "use arithmetic, calls of ops/kernels, tuples and conditionals")

    def attribute(self, node: cst.Attribute, loc) -> ir.Expr:
        attr = node.attr.value
        if isinstance(node.value, cst.Name) and node.value.value == "math":
            if attr in _MATH_CONSTS:
                return ir.Const(loc, ir.FLOAT, _MATH_CONSTS[attr])
            raise self.error("T401", loc, f"math.{attr} is not a constant the translator knows",
                             "use math.pi, math.e, math.tau, math.inf or math.nan")
        if attr not in ("shape", "ndim", "dtype", "numel"):
            raise self.error("T401", loc, f"attribute `.{attr}` cannot be translated",
                             "use .shape, .ndim, .dtype or .numel of a tensor")
        if isinstance(node.value, cst.Name):
            value = self.name(node.value.value, self.loc(node.value), use=attr)
        else:
            value = self.expr(node.value)
        if not value.type.is_tensor:
            raise self.error("T402", loc, f"`.{attr}` of a {pretty(value.type)}",
                             "read metadata of tensors only")
        t = {"shape": ir.SHAPE, "ndim": ir.INT, "dtype": ir.DTYPE, "numel": ir.INT}[attr]
        return ir.Meta(loc, t, value, attr)

    def binary(self, op: str, left: ir.Expr, right: ir.Expr, loc) -> ir.Expr:
        lt, rt = left.type, right.type
        if lt.is_tensor or rt.is_tensor:
            for side in (left, right):
                if not (side.type.is_tensor or side.type.is_number):
                    raise self.error("T402", side.loc, f"a {pretty(side.type)} in tensor "
                                     "arithmetic", "use a tensor or a Python number")
            if op == "pow":
                if rt.is_number:
                    self.require_op("pow_scalar", loc, "**")
                    return ir.Call(loc, ir.TENSOR, "op", "pow_scalar",
                                   (left, self.coerce(right, ir.FLOAT)))
                return ir.TensorOp(loc, ir.TENSOR, self.require_op("pow", loc, "**"),
                                   (left, right))
            name = _TENSOR_BINOP.get(op)
            if name is None or (name == "matmul" and not (lt.is_tensor and rt.is_tensor)):
                raise self.error("T401", loc, f"`{op}` of tensors has no op",
                                 "call the op you mean explicitly")
            return ir.TensorOp(loc, ir.TENSOR, self.require_op(name, loc, op), (left, right))
        if lt in (ir.SHAPE, ir.TENSOR_LIST) and op == "add" and rt == lt:
            return ir.SeqOp(loc, lt, "concat", left, right)
        if op == "mul" and {lt.kind, rt.kind} in ({"Shape", "int"}, {"TensorList", "int"}):
            seq, n = (left, right) if lt.kind != "int" else (right, left)
            return ir.SeqOp(loc, seq.type, "repeat", seq, n)
        if not (lt.is_number and rt.is_number):
            raise self.error("T402", loc, f"`{op}` of a {pretty(lt)} and a {pretty(rt)}",
                             "convert one side, e.g. with tuple(...) or int(...)")
        if op == "matmul":
            raise self.error("T402", loc, "`@` of numbers", "use `*`")
        both_int = ir.FLOAT not in (lt, rt)
        if op == "truediv":
            t = ir.FLOAT
        elif op == "pow" and both_int:
            if not (isinstance(right, ir.Const) and isinstance(right.value, int)
                    and right.value >= 0):
                raise self.error("T408", loc, "int ** int is an int or a float depending on the "
                                 "sign of the exponent, which is not known here",
                                 "write float(a) ** b, or use a non-negative literal exponent")
            t = ir.INT
        else:
            t = ir.INT if both_int else ir.FLOAT
        if isinstance(left, ir.Const) and isinstance(right, ir.Const) and op in ("add", "sub",
                                                                                 "mul"):
            a, b = left.value, right.value
            assert isinstance(a, (int, float)) and isinstance(b, (int, float))
            v = {"add": a + b, "sub": a - b, "mul": a * b}[op]
            return ir.Const(loc, t, int(v) if t == ir.INT else float(v))
        return ir.Num(loc, t, op, left, right)

    def require_op(self, name: str, loc, what: str) -> str:
        if name not in self.program.formulas:
            raise self.error("T411", loc, f"`{what}` on tensors means ops.{name}, which no "
                             "formula module defines", f"define a formula `{name}`")
        return name

    def unary(self, node: cst.UnaryOperation, loc) -> ir.Expr:
        if isinstance(node.operator, cst.Not):
            return ir.Not(loc, ir.BOOL, self.condition(node.expression))
        v = self.expr(node.expression)
        if isinstance(node.operator, cst.Plus):
            return v
        if not isinstance(node.operator, cst.Minus):
            raise self.error("T401", loc, "`~` cannot be translated", "use `not` or `-`")
        if v.type.is_tensor:
            return ir.TensorOp(loc, ir.TENSOR, self.require_op("neg", loc, "-"), (v,))
        if not v.type.is_number:
            raise self.error("T402", loc, f"`-` of a {pretty(v.type)}", "negate numbers only")
        t = ir.INT if v.type == ir.BOOL else v.type
        if isinstance(v, ir.Const) and isinstance(v.value, (int, float)):
            return ir.Const(loc, t, -v.value)
        return ir.Neg(loc, t, v)

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
        first = node.comparisons[0].operator
        if isinstance(node.left, cst.Name) and isinstance(first, (cst.Is, cst.IsNot)):
            # `x is None` reads only whether a captured tensor is defined (metadata)
            left = self.name(node.left.value, self.loc(node.left), use="none")
        else:
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

    def subscript(self, node: cst.Subscript, loc) -> ir.Expr:
        value = self.expr(node.value)
        if len(node.slice) != 1:
            raise self.error("T401", loc, "multi-dimensional indexing cannot be translated",
                             "index a shape with one int or one slice")
        sl = node.slice[0].slice
        if value.type.is_tensor:
            raise self.error("T401", loc, "indexing a tensor in a formula",
                             "use ops.select / ops.slice / ops.index_select")
        if isinstance(sl, cst.Slice):
            if value.type != ir.SHAPE:
                raise self.error("T402", loc, f"slicing a {pretty(value.type)}",
                                 "slice shapes and dims only")
            parts = [None if p is None else self.coerce(self.expr(p), ir.INT, "a slice bound")
                     for p in (sl.lower, sl.upper, sl.step)]
            return ir.Slice(loc, ir.SHAPE, value, *parts)
        assert isinstance(sl, cst.Index)
        index = self.expr(sl.value)
        if value.type.kind == "Tuple":
            if not (isinstance(index, ir.Const) and isinstance(index.value, int)
                    and -len(value.type.elems) <= index.value < len(value.type.elems)):
                raise self.error("T402", loc, "a tuple of results is indexed with an int literal "
                                 "in range", "unpack it: `a, b = ...`")
            i = index.value % len(value.type.elems)
            return ir.Index(loc, value.type.elems[i], value, ir.Const(index.loc, ir.INT, i))
        if value.type not in (ir.SHAPE, ir.TENSOR_LIST):
            raise self.error("T402", loc, f"indexing a {pretty(value.type)}",
                             "index shapes, dims and lists of tensors")
        index = self.coerce(index, ir.INT, "the index")
        return ir.Index(loc, ir.INT if value.type == ir.SHAPE else ir.TENSOR, value, index)

    def make_tuple(self, elems, loc, node, is_list: bool) -> ir.Expr:
        values = tuple(self.expr(e) for e in elems)
        if all(v.type in (ir.INT, ir.BOOL) for v in values):
            return ir.MakeTuple(loc, ir.SHAPE, values)
        if all(v.type.is_tensor for v in values) and is_list:
            return ir.MakeTuple(loc, ir.TENSOR_LIST, values)
        return ir.MakeTuple(loc, ir.tuple_of(*(v.type for v in values)), values)

    def iterable(self, node: cst.BaseExpression) -> ir.Expr:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and (
                node.func.value in ("enumerate", "zip")):
            return self._enumerate_zip(node, node.func.value)
        it = self.expr(node)
        if it.type not in (ir.SHAPE, ir.TENSOR_LIST):
            raise self.error("T402", it.loc, f"cannot loop over a {pretty(it.type)}",
                             "loop over range(...), a shape, dims or a list of tensors")
        return it

    def _enumerate_zip(self, node: cst.Call, fn: str) -> ir.Expr:
        loc = self.loc(node)
        if any(a.keyword is not None or a.star for a in node.args) or not node.args:
            raise self.error("T404", loc, f"{fn}() takes positional arguments here",
                             f"write {fn}(a, b)" if fn == "zip" else "write enumerate(seq)")
        args = [self.expr(a.value) for a in node.args]
        seqs = args[:1] if fn == "enumerate" else args
        for s in seqs:
            if s.type not in (ir.SHAPE, ir.TENSOR_LIST):
                raise self.error("T402", s.loc, f"{fn}() of a {pretty(s.type)}",
                                 f"{fn}() of shapes, dims or lists of tensors")
        if fn == "enumerate" and len(args) > 2:
            raise self.error("T404", loc, "enumerate() takes a sequence and a start",
                             "write enumerate(seq) or enumerate(seq, start)")
        elems = tuple(self.scope_type_of(s) for s in seqs)
        if fn == "enumerate":
            elems = (ir.INT, *elems)
            args = [args[0], self.coerce(args[1], ir.INT, "the start")] if len(args) == 2 else args
        return ir.Call(loc, ir.Type("Iter", elems=elems), "builtin", fn, tuple(args))

    def loop_target(self, target: cst.BaseExpression, it: ir.Expr, loc):
        """(var, var type, unpacked names, their types) of ``for TARGET in it``; binds them."""
        if it.type.kind == "Iter":
            names = [e.value.value for e in target.elements if isinstance(  # type: ignore
                e.value, cst.Name)] if isinstance(target, (cst.Tuple, cst.List)) else []
            if len(names) != len(it.type.elems) or len(names) != len(target.elements):  # type: ignore
                raise self.error("T401", loc, f"unpack each item of {it.name}() into "  # type: ignore
                                 f"{len(it.type.elems)} names", "write `for i, x in ...`")
            var, vtype, unpack, types = "_".join(names) + "_item", it.type, tuple(names), \
                it.type.elems
        elif isinstance(target, cst.Name):
            var, vtype, unpack, types = target.value, self.scope_type_of(it), (), ()
        else:
            raise self.error("T401", loc, "only a name (or names, with enumerate/zip) can be "
                             "a loop target", "loop with `for NAME in ...`")
        for n, t in zip(unpack or (var,), types or (vtype,)):
            if n in self.scope.vars:
                raise self.error("T405", loc, f"loop variable `{n}` is already a local",
                                 "use a fresh name for the loop variable")
            self.scope.vars[n] = t
        return var, vtype, unpack, types

    def comprehension(self, node, loc) -> ir.Expr:
        comp = node.for_in
        if comp.inner_for_in is not None:
            raise self.error("T401", loc, "only `[expr for name in ... if ...]` comprehensions "
                             "can be translated", "use one `for` clause")
        it = self.iterable(comp.iter)
        var, vtype, unpack, types = self.loop_target(comp.target, it, loc)
        try:
            conds = tuple(self.condition(i.test) for i in comp.ifs)
            elt = self.expr(node.elt)
        finally:
            for n in unpack or (var,):
                del self.scope.vars[n]
        if elt.type in (ir.INT, ir.BOOL):
            t = ir.SHAPE
        elif elt.type.is_tensor:
            t = ir.TENSOR_LIST
        else:
            raise self.error("T402", loc, f"a comprehension of {pretty(elt.type)} values",
                             "build tuples of ints or lists of tensors")
        return ir.Comprehension(loc, t, elt, var, vtype, it, conds, unpack, types)

    @staticmethod
    def scope_type_of(it: ir.Expr) -> ir.Type:
        return ir.TENSOR if it.type == ir.TENSOR_LIST else ir.INT

    def fstring(self, node: cst.FormattedString, loc) -> ir.Expr:
        parts: list[Any] = []
        for p in node.parts:
            if isinstance(p, cst.FormattedStringText):
                parts.append(p.value.replace("{{", "{").replace("}}", "}"))
            elif isinstance(p, cst.FormattedStringExpression) and (
                    p.conversion is None and p.format_spec is None):
                e = self.expr(p.expression)
                if e.type.is_tensor or e.type.kind in ("Tuple", "TensorList", "Optional"):
                    raise self.error("T402", e.loc, f"cannot format a {pretty(e.type)}",
                                     "format ints, floats, bools and shapes")
                parts.append(e)
            else:
                raise self.error("T401", loc, "format specs and conversions in f-strings",
                                 "use plain {expr}")
        return ir.FString(loc, ir.STR, tuple(parts))

    def function_return_type(self, spelling: str, value: ir.Expr, loc) -> ir.Type:
        t = parse_type(spelling) if spelling else None
        if t is None:
            if value.type.is_tensor:
                return ir.TENSOR
            raise self.error("T413", loc, f"a formula returning `{spelling or value.type}`",
                             "annotate it -> Tensor")
        return t


