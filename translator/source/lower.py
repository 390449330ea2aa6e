"""Lower: checked model modules (libcst inside) -> typed IR modules.

Stage 2 of the front end: the one lowering and the one type inference of a formula (Note [One
analysis] in frontend.py). Input: a parsed module (``model.Module``) and the program's
signature table (``ops.NAME`` calls are checked against every formula's signature there,
``kernel.NAME`` calls against ``signatures.KERNELS``). Output: its ``ir.Module``, and the type
of each source expression for the fence (Note [The fence reads lowering's types]).

Invariants: Python semantics are kept exactly (Note [Python semantics in the IR]); every local
has one type (``None`` then a tensor is an Optional[Tensor]); whatever C++ could not express
the same way is a ``T4xx`` diagnostic at the formula's line, every one of the program reported
together (Note [Total lowering]).

The pass is one class, ``FunctionLowerer``, one instance per function (formula, composite or
helper), in sections: names and types (a local, a capture of the forward recorded for the node
to save, a module constant; coercion and unification), conditions (truth values, comparisons;
``x is None`` narrows Optionals on each side; a tensor's truth is its data: T409), expressions
(types follow Python: ``/`` is a float, int op float a float; operators on tensors follow the
ARCHITECTURE operator/scalar rule), statements (a local first assigned inside a compound
statement at the top level is declared just before it: C++ scoping) and functions (parameters,
outputs; what the node saves is ``saves``, after the capture rule). Calls (``kernel.NAME``,
``ops.NAME``, helpers, builtins, ``math.*``) are bound the way Python binds them (positional,
keywords, defaults) by the functions after the class (``lower_call``), so an IR call has one
argument per parameter. The environment (types, signatures, scopes) is ``lower_env``.

Note [Python semantics in the IR]
``//``, ``%``, ``/`` and ``**`` on numbers become ``ir.Num`` with the Python operator's name,
which the emitter maps to ``tg::py`` helpers; indexing and slicing of shapes become
``ir.Index``/``ir.Slice`` (negative indices, IndexError); ``and``/``or`` stay ``ir.BoolOp``
(short-circuit); int ** int is an int only when the exponent is a non-negative literal.

Note [Total lowering]
Lowering never drops a statement: one it refuses becomes an ``ir.Refused`` in its place,
carrying its T4xx and the names it binds, and a function refused as a whole (its parameters,
outputs or return type) an ``ir.Refused`` in ``ir.Module.refused`` holding what was lowered of
it. A statement refused for its form (``a = b = v``, an unpacking or a re-binding that does
not type) keeps its lowered value (``Refused.value``): the capture rule judges the names it
binds by that value's type and provenance. The names a refused statement binds are poisoned:
a later read of one is refused with no diagnostic of its own, so one mistake gives one error,
not a cascade. The T4xx are then found by one pass over the IR (``refusals``), in source
order; ``verify`` and the emitters never see a module that has one. A refused compound
statement (its condition or loop header failed) is one ``ir.Refused``: its branches are not
lowered, which is what keeps the diagnostics those of a lowering that stops at the first error
of each statement.

Note [Typing is total]
Lowering types every value the fence accepts, even one the compiled back end cannot compute:
whether C++ can emit a value is one verdict (an ``ir.Refused`` and its T4xx), what Python
makes of it another, and the capture rule needs the second for every name a backward reads
(the reference engine runs formulas the compiled engine refuses). While an assignment's
value is lowered (``statement_value``), an expression refused for what C++ lacks is replaced
by a stand-in of Python's type (``typed``): ``x[0]`` of a tensor is a Tensor, a call whose
arguments do not bind still returns its declared type, a builtin refused for its argument's
type returns Python's result (``_PYTHON_RESULT``; of tensors, a tensor or tensors), tensor
arithmetic C++ has no op for is a Tensor, and so is a conditional or an ``and``/``or`` either
of whose operands is one (else it takes its first operand's type; the provenance the rule
reads joins both); a read of a name whose statement was refused has that statement's value's
type (silently: the refusal was reported there). Lowering goes on through the rest of the
value, and the statement is refused with its *first* refusal (the diagnostic and what the
backward had read are those of a lowering that stopped there) and the typed value as
``Refused.value``. What is a Python error too (``len(3)``, a shape minus an int, a builtin
outside the subset) and a call of an unknown kernel stay untyped: such a value raises before
a backward exists, and the capture rule gives its name no verdict (Note [The capture rule
reads the IR] in captures.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import libcst as cst

from .. import ir, model
from ..diagnostics import Diagnostic
from ..provenance import annotate_module
from ..signatures import NUMBER_OPERAND_KERNELS
from ..subset import EXCEPTIONS, METADATA
from ..user_kernels import kernel_signature
from .literals import INT64_MAX, INT64_MIN, fits_int64, power_fits
from .lower_env import (
    DTYPE_NAMES,
    LowerError,
    OpSig,
    ParamSig,
    Program,
    Scope,
    Signatures,
    diag,
    param_sigs,
    parse_type,
    pretty,
)
from .syntax import find, is_docstring, target_names

_CMPOPS = {cst.LessThan: "lt", cst.LessThanEqual: "le", cst.GreaterThan: "gt",
           cst.GreaterThanEqual: "ge", cst.Equal: "eq", cst.NotEqual: "ne", cst.In: "in",
           cst.NotIn: "notin"}
_BINOPS = {cst.Add: "add", cst.Subtract: "sub", cst.Multiply: "mul", cst.Divide: "truediv",
           cst.FloorDivide: "floordiv", cst.Modulo: "mod", cst.Power: "pow",
           cst.MatrixMultiply: "matmul"}
_TENSOR_BINOP = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "matmul": "matmul"}
_MATH_CONSTS = {"pi": 3.141592653589793, "e": 2.718281828459045, "tau": 6.283185307179586,
                "inf": float("inf"), "nan": float("nan")}
_AUG = {cst.AddAssign: "add", cst.SubtractAssign: "sub", cst.MultiplyAssign: "mul",
        cst.DivideAssign: "truediv", cst.FloorDivideAssign: "floordiv", cst.ModuloAssign: "mod",
        cst.PowerAssign: "pow", cst.MatrixMultiplyAssign: "matmul"}
_MATH_FLOAT = {"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "erf",
               "erfc", "log1p", "expm1", "log2", "log10", "fabs", "lgamma", "atan2", "hypot",
               "copysign", "fmod"}
_MATH_RUNTIME = {"sqrt": ("math_sqrt", ir.FLOAT), "log": ("math_log", ir.FLOAT),
                 "exp": ("math_exp", ir.FLOAT), "floor": ("floor", ir.INT),
                 "ceil": ("ceil", ir.INT), "prod": ("prod", ir.INT),
                 "isfinite": ("isfinite", ir.BOOL), "isnan": ("isnan", ir.BOOL),
                 "isinf": ("isinf", ir.BOOL), "pow": ("pow_float", ir.FLOAT)}
_SigParam = tuple[str, ir.Type, ir.Expr | None]  # name, type, default (None: required)


def lower_program(modules: Sequence[model.Module]) -> tuple[tuple[ir.Module, ...], list]:
    """Lower every module; the IR of each (with ``ir.Refused`` where it had errors) and all
    diagnostics: each module's refusals (``refusals``), then the program's."""
    program = Program.build(modules)
    out = tuple(lower_module(mod, program.signatures) for mod in modules)
    diags = [d for m in out for d in refusals(m)]
    diags.extend(program.diagnostics)
    return out, diags


def refusals(mod: ir.Module) -> list[Diagnostic]:
    """The T4xx of a lowered module: one pass over its IR, in source order (Note [Total
    lowering])."""
    found = [s.diagnostic for s in ir.module_stmts(mod)
             if isinstance(s, ir.Refused) and s.diagnostic is not None]
    return sorted(found, key=lambda d: (d.loc.line, d.loc.col))


def lower_module(mod: model.Module, signatures: Signatures,
                 types: dict[cst.CSTNode, ir.Type] | None = None) -> ir.Module:
    """Lower one module alone against the program's signature table (Note [Signatures as
    data] in lower_env.py); its T4xx are its ``refusals``. ``types``, when given, receives
    the type of every source expression lowering typed."""
    types = {} if types is None else types
    consts = tuple(ir.ConstDef(c.name, _const_type(c.value), c.value, c.loc)
                   for c in mod.constants)
    helpers, functions, refused = [], [], []
    reads: set[str] = set()
    entities: list[model.Helper | model.Formula] = [*mod.helpers, *mod.formulas]
    for entity in entities:
        lw = FunctionLowerer(signatures, mod, entity.name, reads, types)
        try:
            if isinstance(entity, model.Helper):
                helpers.append(lw.helper(entity))
            else:
                functions.append(lw.formula(entity))
        except LowerError as e:
            refused.append(ir.Refused(entity.loc, e.diagnostic, body=tuple(lw.lowered)))
    lowered = ir.Module(mod.name, mod.path, consts, tuple(helpers), tuple(functions),
                        tuple(refused), tuple(sorted(reads)))
    return annotate_module(lowered)  # Note [Provenance]


def _const_type(value) -> ir.Type:
    return ir.BOOL if isinstance(value, bool) else ir.INT if isinstance(value, int) else ir.FLOAT


class FunctionLowerer:
    """Lowers one formula (forward and backward), composite or helper: its names, conditions,
    expressions, statements and the function itself (the sections below)."""

    # -- the function's state -------------------------------------------------------------------

    def __init__(self, signatures: Signatures, mod: model.Module, name: str, reads: set[str],
                 types: dict[cst.CSTNode, ir.Type]):
        self.signatures, self.mod, self.formula_name = signatures, mod, name
        self.reads = reads  # the names of ``signatures`` lowering looked up (ir.Module)
        self.types = types  # every expression's type, by source node (for the fence)
        self.scope = Scope()
        self.declared: set[str] = set()
        self.assigned: list[str] = []
        self.loop_vars: set[str] = set()
        self.captured: set[str] = set()  # names of the forward a backward has read
        self.return_type: ir.Type | None = None
        self.tensor_params: list | None = None
        self.returns_spelling = ""
        self.consts = {c.name: c.value for c in mod.constants}
        self.lowered: list[ir.Stmt] = []        # top-level statements lowered so far
        self.poisoned: dict[str, ir.Type | None] = {}  # name -> its refused value's type
        self.typing = False  # lowering a statement's value (Note [Typing is total])
        self.pending: tuple[LowerError, set[str]] | None = None

    def loc(self, node: cst.CSTNode) -> model.Loc:
        return self.mod.loc_of(node)

    def error(self, code: str, loc: model.Loc, message: str, hint: str) -> LowerError:
        return LowerError(diag(self.mod, code, loc, message, hint))

    def typed(self, err: LowerError, stand_in: ir.Expr) -> ir.Expr:
        """``stand_in``, typed as Python types the expression lowering refuses with ``err``,
        while a statement's value is lowered (``statement_value``); ``err`` raised elsewhere.
        Note [Typing is total]."""
        if not self.typing:
            raise err
        if self.pending is None:  # the statement's first refusal is the one it reports
            self.pending = (err, set(self.captured))
        return stand_in

    def statement_value(self, lower: Callable[[], ir.Expr]) -> ir.Expr:
        """The value of an assignment, lowered by ``lower``; when part of it was refused, the
        first refusal is raised carrying the value typed through it (Note [Typing is
        total])."""
        self.typing, self.pending = True, None
        value: ir.Expr | None = None
        try:
            value = lower()
        except LowerError:
            if self.pending is None:
                raise
        finally:
            pending, self.typing, self.pending = self.pending, False, None
        if pending is None:
            assert value is not None
            return value
        err, self.captured = pending  # what was read before the refusal, as if it had stopped
        err.value = value
        raise err

    # -- names ----------------------------------------------------------------------------------

    def name(self, n: str, loc: model.Loc) -> ir.Expr:
        if n in self.poisoned:
            t = self.poisoned[n]
            if t is None:
                raise LowerError(None)
            return self.typed(LowerError(None), ir.Name(loc, t, n))  # Note [Typing is total]
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

    # -- coercion -------------------------------------------------------------------------------

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

    def op_signature(self, name: str) -> OpSig | None:
        """The signature of formula ``name`` in the program, noted as read (``signature_reads``)."""
        self.reads.add(name)
        return self.signatures.ops.get(name)

    def require_op(self, name: str, loc, what: str) -> str:
        if self.op_signature(name) is None:
            raise self.error("T411", loc, f"`{what}` on tensors means ops.{name}, which no "
                             "formula module defines", f"define a formula `{name}`")
        return name

    # -- conditions and comparisons -------------------------------------------------------------

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
                err = self.error("T402", side.loc, f"`{op}` of a {pretty(side.type)} returns "
                                 "one of its operands, not a bool", "use it in a condition, or "
                                 "write `x if x is not None else y`")
                # Python's value is one of the operands (Note [Typing is total])
                tensor = left.type.is_tensor or right.type.is_tensor
                return self.typed(err, ir.BoolOp(loc, ir.TENSOR if tensor else left.type, op,
                                                 (left, right)))
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
        try:
            t = self.unify(then.type, orelse.type, loc)
        except LowerError as e:  # a tensor when either branch is one (Note [Typing is total])
            t = ir.TENSOR if then.type.is_tensor or orelse.type.is_tensor else then.type
            return self.typed(e, ir.IfExp(loc, t, cond, then, orelse))
        return ir.IfExp(loc, t, cond, self.coerce(then, t), self.coerce(orelse, t))


    # -- expressions ----------------------------------------------------------------------------

    def expr(self, node: cst.BaseExpression) -> ir.Expr:
        """``node`` lowered; its type noted for the fence (Note [The fence reads lowering's
        types] in fence.py), also when lowering refuses it but typed it through."""
        try:
            e = self._expr(node)
        except LowerError as err:
            if err.value is not None:
                self.types[node] = err.value.type
            raise
        self.types[node] = e.type
        return e

    def _expr(self, node: cst.BaseExpression) -> ir.Expr:
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
            self.value_of_refused(node.value)  # typed all the same, for the fence's words
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
                    return self.typed(self.error("T402", side.loc, f"a {pretty(side.type)} in "
                                                 "tensor arithmetic", "use a tensor or a "
                                                 "Python number"),
                                      ir.TensorOp(loc, ir.TENSOR, op, (left, right)))
            if op == "pow":
                if rt.is_number:
                    self.require_op("pow_scalar", loc, "**")
                    return ir.Call(loc, ir.TENSOR, "op", "pow_scalar",
                                   (left, self.coerce(right, ir.FLOAT)))
                return ir.TensorOp(loc, ir.TENSOR, self.require_op("pow", loc, "**"),
                                   (left, right))
            name = _TENSOR_BINOP.get(op)
            if name is None or (name == "matmul" and not (lt.is_tensor and rt.is_tensor)):
                return self.typed(self.error("T401", loc, f"`{op}` of tensors has no op",
                                             "call the op you mean explicitly"),
                                  ir.TensorOp(loc, ir.TENSOR, op, (left, right)))
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
            err = self.error("T401", loc, "`~` cannot be translated", "use `not` or `-`")
            if v.type.is_tensor:
                return self.typed(err, ir.TensorOp(loc, ir.TENSOR, "bitwise_not", (v,)))
            raise err
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
        # indexing a tensor gives a tensor, which C++ does not compute (Note [Typing is total])
        stand_in = ir.Index(loc, ir.TENSOR, value, ir.Const(loc, ir.INT, 0))
        if len(node.slice) != 1:
            err = self.error("T401", loc, "multi-dimensional indexing cannot be translated",
                             "index a shape with one int or one slice")
            if value.type.is_tensor:
                return self.typed(err, stand_in)
            raise err
        sl = node.slice[0].slice
        if value.type.is_tensor:
            return self.typed(self.error("T401", loc, "indexing a tensor in a formula",
                                         "use ops.select / ops.slice / ops.index_select"),
                              stand_in)
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
        prov = ir.MUTABLE if is_list else 0
        if all(v.type in (ir.INT, ir.BOOL) for v in values):
            return ir.MakeTuple(loc, ir.SHAPE, values, prov=prov)
        if all(v.type.is_tensor for v in values) and is_list:
            return ir.MakeTuple(loc, ir.TENSOR_LIST, values, prov=prov)
        return ir.MakeTuple(loc, ir.tuple_of(*(v.type for v in values)), values, prov=prov)

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
        return ir.Comprehension(loc, t, elt, var, vtype, it, conds, unpack, types,
                                prov=ir.MUTABLE if isinstance(node, cst.ListComp) else 0)

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

    # -- statements -----------------------------------------------------------------------------

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
                out.append(self.refused(e, stmt))
                continue
            if top:
                new = [n for n in self.assigned if n not in before and n not in self.declared]
                for n in dict.fromkeys(new):
                    out.append(ir.Declare(self.loc(stmt), n, self.scope.vars[n]))
                    self.declared.add(n)
            out.append(lowered)
        if top:
            self.lowered.extend(out)
        return tuple(out)

    def recover(self, small: cst.BaseSmallStatement, top: bool) -> list[ir.Stmt]:
        """Lower one statement; a refused one becomes an ``ir.Refused`` in its place and
        lowering goes on with the next statement (Note [Total lowering])."""
        try:
            return self.small(small, top)
        except LowerError as e:
            return [self.refused(e, small)]

    def refused(self, e: LowerError, node: cst.CSTNode) -> ir.Refused:
        """Note [Total lowering]: the names a refused statement assigns are *poisoned*: reading
        one later is refused silently, so one mistake gives one diagnostic, not a cascade."""
        names = _assigned_names(node)
        targets = ([t.target for t in node.targets] if isinstance(node, cst.Assign) else
                   [node.target] if isinstance(node, (cst.AnnAssign, cst.AugAssign)) else [])
        # a name bound to the whole value (not unpacked) keeps its type: Note [Typing is total]
        t = e.value.type if e.value is not None and targets and all(
            isinstance(x, cst.Name) for x in targets) else None
        self.poisoned.update(dict.fromkeys(names, t))
        return ir.Refused(self.loc(node), e.diagnostic, tuple(sorted(names)), value=e.value)

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
                e = self.error("T401", loc, "chained assignment `a = b = ...` is not supported",
                               "assign each name separately")
                e.value = self.value_of_refused(s.value)
                raise e
            value = self.statement_value(lambda: self.expr(s.value))
            return [self.assign(s.targets[0].target, value, loc, top)]
        if isinstance(s, cst.AnnAssign) and s.value is not None:
            given = s.value
            value = self.statement_value(lambda: self.expr(given))
            return [self.assign(s.target, value, loc, top)]
        if isinstance(s, cst.AugAssign):
            op = _AUG.get(type(s.operator))
            if op is None:
                raise self.error("T401", loc, "bitwise augmented assignment cannot be translated",
                                 "use arithmetic")
            value = self.statement_value(
                lambda: self.binary(op, self.expr(s.target), self.expr(s.value), loc))
            return [self.assign(s.target, value, loc, top)]
        if isinstance(s, cst.Return):
            return [self.ret(s, loc)]
        if isinstance(s, cst.Raise):
            return [self.raise_(s, loc)]
        raise self.error("T401", loc, f"`{type(s).__name__}` statements cannot be translated",
                         "use assignments, if/else, for over range() or a shape, return")

    def value_of_refused(self, node: cst.BaseExpression) -> ir.Expr | None:
        """The value of a statement refused for its form (Note [Total lowering]), lowered for
        its type and provenance only; None when it does not lower (no second diagnostic)."""
        captured = set(self.captured)
        try:
            return self.statement_value(lambda: self.expr(node))
        except LowerError as e:
            return e.value
        finally:
            self.captured = captured  # an unused read is no capture (T405)

    def assign(self, target: cst.BaseExpression, value: ir.Expr, loc, top: bool) -> ir.Stmt:
        try:
            return self.assign_to(target, value, loc, top)
        except LowerError as e:
            e.value = value
            raise

    def assign_to(self, target: cst.BaseExpression, value: ir.Expr, loc, top: bool) -> ir.Stmt:
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
        rebound = [t for st in ir.walk_stmts(body) if isinstance(st, ir.Assign)
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


    # -- functions ------------------------------------------------------------------------------

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

    # -- differentiable formulas ----------------------------------------------------------------

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
        forward = tuple((n, t, n in forward_scope.narrowed) for n, t in forward_scope.vars.items())
        backward = ir.BackwardFn(tuple(bw.params), (), bbody, bw.loc, forward)
        ret = ir.TENSOR if len(visible) == 1 else ir.tuple_of(*[ir.TENSOR] * len(visible))
        return ir.Function(f.name, "formula", params, ret, body, f.loc, tuple(outputs), backward,
                           opts.once_differentiable, opts.materialize_grads, f.doc)

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
    return body[1:] if body and is_docstring(body[0]) else body


def _exits(stmts: Sequence[ir.Stmt]) -> bool:
    """True when every path through ``stmts`` returns or raises."""
    for s in stmts:
        if isinstance(s, (ir.Return, ir.Raise)):
            return True
        if isinstance(s, ir.If) and _exits(s.then) and _exits(s.orelse):
            return True
    return False


def _assigned_names(node: cst.CSTNode) -> set[str]:
    targets = find(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign))
    return {n for t in targets for n in target_names(t.target)}


def block_statements(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    """The statements of a block; ``if c: return x`` on one line is one simple statement."""
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    assert isinstance(suite, cst.SimpleStatementSuite)
    return [cst.SimpleStatementLine(body=suite.body)]


# -- calls --------------------------------------------------------------------------------------

def lower_call(lw: FunctionLowerer, node: cst.Call, loc) -> ir.Expr:
    func = node.func
    if any(a.star for a in node.args):
        raise lw.error("T401", loc, "`*args` / `**kwargs` in a call", "pass arguments one by one")
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
        ns, name = func.value.value, func.attr.value
        if ns == "kernel":
            return _kernel(lw, node, name, loc)
        if ns == "ops":
            return _op(lw, node, name, loc)
        if ns == "math":
            return _math(lw, node, name, loc)
    if isinstance(func, cst.Name):
        name = func.value
        if name in {h.name for h in lw.mod.helpers}:
            return _helper(lw, node, name, loc)
        return _builtin(lw, node, name, loc)
    raise lw.error("T401", loc, "only kernel.NAME, ops.NAME, helpers, math.NAME and builtins "
                   "can be called", "call one of those")


def bind_args(lw: FunctionLowerer, node: cst.Call, params: Sequence[_SigParam], callee: str,
              loc) -> tuple[ir.Expr, ...]:
    """One lowered, coerced argument per parameter (Python's binding rules)."""
    bound: list[ir.Expr | None] = [None] * len(params)
    names = [p[0] for p in params]
    for i, a in enumerate(node.args):
        if a.keyword is None:
            if i >= len(params):
                raise lw.error("T404", lw.loc(a.value), f"{callee} takes {len(params)} "
                               f"argument(s) but more were given", "remove the extra arguments")
            bound[i] = lw.expr(a.value)
        else:
            kw = a.keyword.value
            if kw not in names:
                raise lw.error("T404", lw.loc(a.value), f"{callee} has no parameter `{kw}`",
                               f"its parameters are: {', '.join(names) or 'none'}")
            j = names.index(kw)
            if bound[j] is not None:
                raise lw.error("T404", lw.loc(a.value), f"{callee} got `{kw}` twice",
                               "pass each argument once")
            bound[j] = lw.expr(a.value)
    out = []
    for (pname, ptype, default), arg in zip(params, bound):
        if arg is None:
            if default is None:
                raise lw.error("T404", loc, f"{callee} needs argument `{pname}`",
                               f"pass `{pname}`")
            arg = default
        out.append(lw.coerce(arg, ptype, f"argument `{pname}` of {callee}"))
    return tuple(out)


def _kernel(lw: FunctionLowerer, node: cst.Call, name: str, loc) -> ir.Expr:
    sig = kernel_signature(name)
    if sig is None:
        raise lw.error("T403", loc, f"kernel.{name} is not declared in translator/signatures.py",
                       "use a declared kernel")
    first = node.args[0].value if node.args and node.args[0].keyword is None else None
    params = [(p.name, parse_type(p.type), _kernel_default(lw, p, first, loc))
              for p in sig.params]
    ret = parse_type(sig.returns)
    assert ret is not None
    try:
        args = _number_operand(lw, node, name, loc)
        if args is None:
            args = bind_args(lw, node, params, f"kernel.{name}", loc)  # type: ignore[arg-type]
    except LowerError as e:  # its arguments: the call still has its declared type
        return lw.typed(e, ir.Call(loc, ret, "kernel", name, ()))
    return ir.Call(loc, ret, "kernel", name, args)


def _kernel_default(lw: FunctionLowerer, p, first, loc) -> ir.Expr | None:
    """The value the translator supplies for kernel parameter ``p`` left out (Note [Kernel
    defaults]): ``keepdim=False``, or ``dims=all`` as ``range(x.ndim)`` of a variable ``x``."""
    if p.default in ("False", "True"):
        return ir.Const(loc, ir.BOOL, p.default == "True")
    if p.default == "all" and isinstance(first, cst.Name):
        x = lw.expr(first)
        if x.type.is_tensor:
            return ir.Call(loc, ir.SHAPE, "range", "range", (ir.Meta(loc, ir.INT, x, "ndim"),))
    return None


def _number_operand(lw: FunctionLowerer, node: cst.Call, name: str, loc
                    ) -> tuple[ir.Expr, ...] | None:
    """The two operands of an elementwise binary kernel with a number standing for a tensor,
    the number wrapped as ``kernel.scalar_like(other, number)`` (Note [Numbers as kernel
    operands]); None when the call is not of that form (``bind_args`` binds it)."""
    if name not in NUMBER_OPERAND_KERNELS or len(node.args) != 2 or any(
            a.keyword for a in node.args):
        return None
    a, b = (lw.expr(arg.value) for arg in node.args)
    simple = (ir.Name, ir.Saved)
    if a.type.is_tensor and isinstance(a, simple) and not b.type.is_tensor:
        return a, _scalar_like(lw, a, b, name)
    if b.type.is_tensor and isinstance(b, simple) and not a.type.is_tensor:
        return _scalar_like(lw, b, a, name), b
    return None


def _scalar_like(lw: FunctionLowerer, other: ir.Expr, number: ir.Expr, name: str) -> ir.Expr:
    value = lw.coerce(number, ir.FLOAT, f"the number operand of kernel.{name}")
    return ir.Call(number.loc, ir.TENSOR, "kernel", "scalar_like", (other, value))


def value_expr(value, t: ir.Type, loc) -> ir.Expr:
    """A literal default (parse's ``default_value``) as an IR constant of type ``t``."""
    if value is None:
        return ir.Const(loc, t, None)
    if isinstance(value, (tuple, list)):
        return ir.MakeTuple(loc, ir.SHAPE, tuple(ir.Const(loc, ir.INT, v) for v in value))
    if (t == ir.DTYPE or (t.is_optional and t.arg == ir.DTYPE)) and value in DTYPE_NAMES:
        return ir.DTypeConst(loc, ir.DTYPE, value)
    if isinstance(value, bool):
        return ir.Const(loc, ir.BOOL, value)
    if isinstance(value, int):
        return ir.Const(loc, ir.INT, value)
    if isinstance(value, float):
        return ir.Const(loc, ir.FLOAT, value)
    return ir.Const(loc, ir.STR, str(value))


def signature(lw: FunctionLowerer, params: Sequence[ParamSig], callee: str, loc
              ) -> list[_SigParam]:
    out = []
    for p in params:
        t = parse_type(p.type)
        if t is None:
            raise lw.error("T413", loc, f"{callee} has parameter `{p.name}: {p.type}`, a type "
                           "the compiled engine cannot take", "fix that formula's annotation")
        default = None
        if p.has_default:
            default = value_expr(p.default, t, loc)
        out.append((p.name, t, default))
    return out


def _op(lw: FunctionLowerer, node: cst.Call, name: str, loc) -> ir.Expr:
    sig = lw.op_signature(name)
    if sig is not None:
        try:
            args = bind_args(lw, node, signature(lw, sig.params, f"ops.{name}", loc),
                             f"ops.{name}", loc)
        except LowerError as e:  # its arguments: the call still has its declared type
            return lw.typed(e, ir.Call(loc, sig.returns, "op", name, ()))
        return ir.Call(loc, sig.returns, "op", name, args)
    if any(h.name == name for h in lw.mod.helpers):
        return _helper(lw, node, name, loc)
    if name in lw.signatures.helpers:
        raise lw.error("T403", loc, f"ops.{name} is a helper of {lw.signatures.helpers[name]}; "
                       "helpers are compiled into their own module", "make it a formula, or "
                       "move the helper into this module")
    err = lw.error("T403", loc, f"ops.{name} is not a formula, composite or helper of any "
                   "formula module", "define it with @formula, or use an existing op")
    # Note [An op of another module]: at import, a module is lowered alone against the
    # shipped formulas' table, yet the reference engine resolves ``ops.NAME`` at run time, so
    # NAME may be a formula of another user module. What it returns is a tensor as far as
    # the capture rule is concerned (a formula returns tensors): a backward saving it is
    # refused (T201/T211) instead of being accepted as untyped.
    return lw.typed(err, ir.Call(loc, ir.TENSOR, "op", name, ()))


def _helper(lw: FunctionLowerer, node: cst.Call, name: str, loc) -> ir.Expr:
    h = next(h for h in lw.mod.helpers if h.name == name)
    ret = parse_type(h.returns)
    try:
        args = bind_args(lw, node, signature(lw, param_sigs(h.params), f"helper {name}", loc),
                         name, loc)
    except LowerError as e:  # its arguments: the call still has its declared type
        if ret is None:
            raise
        return lw.typed(e, ir.Call(loc, ret, "helper", name, ()))
    if ret is None:
        raise lw.error("T413", loc, f"helper {name} has no usable return annotation",
                       "annotate it, e.g. -> Tensor")
    return ir.Call(loc, ret, "helper", name, args)


def _args(lw: FunctionLowerer, node: cst.Call, name: str, lo: int, hi: int, loc) -> list[ir.Expr]:
    if any(a.keyword is not None for a in node.args) or not lo <= len(node.args) <= hi:
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        raise lw.error("T404", loc, f"{name}() takes {want} positional argument(s) here",
                       "pass positional arguments only")
    return [lw.expr(a.value) for a in node.args]


def _math(lw: FunctionLowerer, node: cst.Call, name: str, loc) -> ir.Expr:
    if name in _MATH_RUNTIME:
        fn, t = _MATH_RUNTIME[name]
        if name == "prod":
            (x,) = _args(lw, node, "math.prod", 1, 1, loc)
            return ir.Call(loc, ir.INT, "builtin", "prod", (lw.coerce(x, ir.SHAPE),))
        hi = 2 if name in ("log", "pow") else 1
        args = [lw.coerce(a, ir.FLOAT) for a in _args(lw, node, f"math.{name}", 1, hi, loc)]
        if fn in ("isfinite", "isnan", "isinf", "pow_float"):
            return ir.Call(loc, t, "math", fn if fn != "pow_float" else "pow", tuple(args))
        return ir.Call(loc, t, "builtin", fn, tuple(args))
    if name in _MATH_FLOAT:
        hi = 2 if name in ("atan2", "hypot", "copysign", "fmod") else 1
        args = [lw.coerce(a, ir.FLOAT) for a in _args(lw, node, f"math.{name}", hi, hi, loc)]
        return ir.Call(loc, ir.FLOAT, "math", name, tuple(args))
    raise lw.error("T401", loc, f"math.{name} cannot be translated",
                   "use sqrt, exp, log, floor, ceil, prod, trigonometric functions, erf")


# The Python result of a builtin lowering refuses for its arguments' types (Note [Typing is
# total]); the others give a tensor (min, max, abs, sum) or tensors (tuple, list, sorted,
# reversed) of tensors, and Python's error otherwise.
_PYTHON_RESULT = {"len": ir.INT, "int": ir.INT, "round": ir.INT, "float": ir.FLOAT,
                  "all": ir.BOOL, "any": ir.BOOL}


def _builtin(lw: FunctionLowerer, node: cst.Call, name: str, loc) -> ir.Expr:
    def refused(args: Sequence[ir.Expr], message: str, hint: str) -> ir.Expr:
        err = lw.error("T402", loc, message, hint)
        t = _PYTHON_RESULT.get(name)
        if t is None and any(a.type.is_tensor or a.type == ir.TENSOR_LIST for a in args):
            t = ir.TENSOR if name in ("min", "max", "abs", "sum") else ir.TENSOR_LIST
        if t is None:
            raise err
        return lw.typed(err, ir.Call(loc, t, "builtin", name, tuple(args)))

    if name == "len":
        (x,) = _args(lw, node, name, 1, 1, loc)
        if x.type not in (ir.SHAPE, ir.TENSOR_LIST):
            return refused((x,), f"len() of a {x.type}", "use x.ndim for a tensor")
        return ir.Call(loc, ir.INT, "builtin", "len", (x,))
    if name == "range":
        args = [lw.coerce(a, ir.INT, "a range bound") for a in _args(lw, node, name, 1, 3, loc)]
        return ir.Call(loc, ir.SHAPE, "range", "range", tuple(args))
    if name in ("tuple", "list"):
        mutable = ir.MUTABLE if name == "list" else ir.AS_TUPLE  # Note [Provenance]
        if len(node.args) == 0:
            return ir.MakeTuple(loc, ir.SHAPE, (), prov=mutable)
        (x,) = _args(lw, node, name, 1, 1, loc)
        if x.type not in (ir.SHAPE, ir.TENSOR_LIST):
            return refused((x,), f"{name}() of a {x.type}", "convert shapes and lists")
        return dataclasses.replace(x, prov=(x.prov & ~ir.MUTABLE) | mutable)
    if name in ("min", "max"):
        args = _args(lw, node, name, 1, 8, loc)
        if len(args) == 1:
            if args[0].type != ir.SHAPE:
                return refused(args, f"{name}() of one {args[0].type}",
                               f"{name}() of a shape, or of several numbers")
            return ir.Call(loc, ir.INT, "builtin", name, tuple(args))
        if not all(a.type.is_number for a in args):
            return refused(args, f"{name}() of non-numbers", "use ops.maximum/minimum "
                           "for tensors")
        t = ir.FLOAT if any(a.type == ir.FLOAT for a in args) else ir.INT
        return ir.Call(loc, t, "builtin", name, tuple(args))
    if name == "abs":
        (x,) = _args(lw, node, name, 1, 1, loc)
        if x.type.is_tensor:
            return ir.Call(loc, ir.TENSOR, "op", lw.require_op("abs", loc, "abs()"), (x,))
        if not x.type.is_number:
            return refused((x,), f"abs() of a {x.type}", "abs() of a number or tensor")
        return ir.Call(loc, ir.INT if x.type == ir.BOOL else x.type, "builtin", "abs", (x,))
    if name in ("int", "float", "bool"):
        (x,) = _args(lw, node, name, 1, 1, loc)
        if name == "bool":
            return lw.truth(x)
        if not x.type.is_number:
            return refused((x,), f"{name}() of a {x.type}", f"{name}() of a number")
        if name == "int":
            return x if x.type == ir.INT else ir.Call(loc, ir.INT, "builtin", "to_int", (x,))
        return x if x.type == ir.FLOAT else ir.Call(loc, ir.FLOAT, "float", "float", (x,))
    if name in ("all", "any"):
        (x,) = _args(lw, node, name, 1, 1, loc)
        if x.type != ir.SHAPE:
            return refused((x,), f"{name}() of a {x.type}",
                           f"{name}() of a comprehension of conditions")
        return ir.Call(loc, ir.BOOL, "builtin", name, (x,))
    if name == "round":
        (x,) = _args(lw, node, "round", 1, 1, loc)
        if not x.type.is_number:
            return refused((x,), f"round() of a {x.type}", "round() of a number")
        return x if x.type != ir.FLOAT else ir.Call(loc, ir.INT, "builtin", "round", (x,))
    if name in ("sorted", "reversed", "sum"):
        (x,) = _args(lw, node, name, 1, 1, loc)
        if x.type != ir.SHAPE:
            return refused((x,), f"{name}() of a {x.type}", f"{name}() of a shape/dims")
        return ir.Call(loc, ir.INT if name == "sum" else ir.SHAPE, "builtin", name, (x,))
    raise lw.error("T401", loc, f"`{name}(...)` cannot be translated",
                   "call kernel.NAME, ops.NAME, a @helper of this module, math.NAME, or len, "
                   "range, min, max, abs, int, float, tuple, sorted, sum")
