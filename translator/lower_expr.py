"""Lower, expressions: libcst expressions -> typed ``ir.Expr`` (part of the ``lower`` stage).

Input: one libcst expression of a formula, the program's signatures (``Program``) and the
current ``Scope``. Output: an ``ir.Expr`` whose ``type`` is known. Types follow Python: ``/``
is a float, int op float is a float, int ** int is an int only for a non-negative literal
exponent (Note [Python semantics in the IR], lower.py); operators on tensors follow the
ARCHITECTURE operator/scalar rule. Errors are ``LowerError`` with a T4xx diagnostic
(the T4xx codes of diagnostic_codes.py).
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from . import ir
from .literals import INT64_MAX, INT64_MIN, fits_int64, power_fits
from .lower_call import lower_call
from .lower_cond import CondLowerer
from .lower_env import parse_type, pretty
from .subset import METADATA

_BINOPS = {cst.Add: "add", cst.Subtract: "sub", cst.Multiply: "mul", cst.Divide: "truediv",
           cst.FloorDivide: "floordiv", cst.Modulo: "mod", cst.Power: "pow",
           cst.MatrixMultiply: "matmul"}
_TENSOR_BINOP = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "matmul": "matmul"}
_MATH_CONSTS = {"pi": 3.141592653589793, "e": 2.718281828459045, "tau": 6.283185307179586,
                "inf": float("inf"), "nan": float("nan")}


class ExprLowerer(CondLowerer):
    """Lowers expressions; names and coercion come from ``lower_names``, conditions and
    comparisons from ``lower_cond``, calls from ``lower_call``."""

    # -- expressions --------------------------------------------------------------------------

    def expr(self, node: cst.BaseExpression) -> ir.Expr:
        loc = self.loc(node)
        if isinstance(node, cst.Integer):
            return self.int_const(loc, int(node.evaluated_value))
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

    def int_const(self, loc, value: int) -> ir.Const:
        """An int the program states (a literal or constant arithmetic), refused with T115 at
        its line when ``int64_t`` cannot hold it (Note [Bounded folding] in literals.py)."""
        if not fits_int64(value):
            raise self.error("T115", loc, f"the integer {value} is outside int64 (from "
                             f"{INT64_MIN} to {INT64_MAX}): C++ would not compute Python's "
                             "exact value", "use a smaller value, or a float")
        return ir.Const(loc, ir.INT, value)

    def attribute(self, node: cst.Attribute, loc) -> ir.Expr:
        attr = node.attr.value
        if isinstance(node.value, cst.Name) and node.value.value == "math":
            if attr in _MATH_CONSTS:
                return ir.Const(loc, ir.FLOAT, _MATH_CONSTS[attr])
            raise self.error("T401", loc, f"math.{attr} is not a constant the translator knows",
                             "use math.pi, math.e, math.tau, math.inf or math.nan")
        if attr not in METADATA:
            raise self.error("T401", loc, f"attribute `.{attr}` cannot be translated",
                             "use .shape, .ndim, .dtype or .numel of a tensor")
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
            if isinstance(left, ir.Const) and not power_fits(left.value, right.value):
                raise self.error("T115", loc, f"{left.value} ** {right.value} is outside int64 "
                                 f"(from {INT64_MIN} to {INT64_MAX}): C++ would not compute "
                                 "Python's exact value", "use a smaller value, or a float")
            if isinstance(left, ir.Const):  # folded, so that arithmetic on it is checked too
                assert isinstance(left.value, int) and isinstance(right.value, int)
                return self.int_const(loc, left.value ** right.value)
        else:
            t = ir.INT if both_int else ir.FLOAT
        if isinstance(left, ir.Const) and isinstance(right, ir.Const) and op in ("add", "sub",
                                                                                 "mul"):
            a, b = left.value, right.value
            assert isinstance(a, (int, float)) and isinstance(b, (int, float))
            v = {"add": a + b, "sub": a - b, "mul": a * b}[op]
            return self.int_const(loc, int(v)) if t == ir.INT else ir.Const(loc, t, float(v))
        return ir.Num(loc, t, op, left, right)

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
            return self.int_const(loc, int(-v.value)) if t == ir.INT else ir.Const(loc, t, -v.value)
        return ir.Neg(loc, t, v)

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
