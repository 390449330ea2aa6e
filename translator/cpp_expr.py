"""Emit, expressions and types: ``ir.Expr`` / ``ir.Type`` -> C++ text (part of ``emit_cpp``).

Input: typed IR only (never libcst). Output: C++ expressions in the style of the ARCHITECTURE
example: tensor arithmetic as operators (``grad * ops::cos(x)``; ops.h defines them), every
other op as ``ops::NAME``, kernels as ``kernel::NAME``, Python-semantics arithmetic through
``py::`` (csrc/formula/runtime.h). Parentheses are emitted by C++ precedence only.

Invariants: output is deterministic; Python names are kept unless they clash with C++
(``cname``); members of a node are the Python name plus ``_``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from . import ir
from .ir import transform

# C++ keywords and names the generated code uses: a Python name among them gets a suffix.
_KEYWORDS = frozenset((
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char16_t", "char32_t", "class", "compl", "const", "constexpr",
    "const_cast", "continue", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
    "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
    "reinterpret_cast", "return", "short", "signed", "sizeof", "static", "static_assert",
    "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true",
    "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
    "volatile", "wchar_t", "while", "xor", "xor_eq", "std", "tg", "py", "ops", "kernel",
    "helpers", "node", "no_grad", "grads", "results", "Tensor", "Shape", "DType", "int64_t",
    # the autograd runtime the generated functions and nodes call (csrc/autograd)
    "autograd", "Node", "NoGradGuard", "SavedVariable", "SourceLoc", "variable_list",
    "make_node", "set_history", "any_requires_grad", "collect_next_edges", "materialize_grad",
    "wrap_once_differentiable", "grads_out", "v",
))
_DTYPES = {"bool": "DType::Bool", "int64": "DType::Int64", "float32": "DType::Float32",
           "float64": "DType::Float64"}
_INFIX_TENSOR = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
_INFIX_NUM = {"add": "+", "sub": "-", "mul": "*"}
_CMP = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
_PREC = {"*": 5, "/": 5, "+": 6, "-": 6, "<": 9, "<=": 9, ">": 9, ">=": 9, "==": 10, "!=": 10,
         "&&": 14, "||": 15}
PRIMARY, UNARY, TERNARY = 1, 3, 16


def cname(name: str) -> str:
    """A Python name as a C++ identifier (``new`` -> ``new_v``). Injective: a name that
    already ends in ``_v`` gets the suffix too, so ``new_v`` cannot meet the mangled ``new``."""
    return name + "_v" if name in _KEYWORDS or name.endswith("_v") else name


def ctype(t: ir.Type) -> str:
    k = t.kind
    if t.is_tensor:
        return "Tensor"
    if k == "Optional":
        return f"std::optional<{ctype(t.arg)}>"  # type: ignore[arg-type]
    if k == "Tuple":
        return f"std::tuple<{', '.join(ctype(e) for e in t.elems)}>"
    return {"TensorList": "std::vector<Tensor>", "int": "int64_t", "float": "double",
            "bool": "bool", "Shape": "Shape", "DType": "DType", "str": "std::string",
            "None": "Tensor"}[k]


def param_type(t: ir.Type, mutable: bool = False) -> str:
    """How a parameter of this type is passed (const reference unless cheap or re-bound)."""
    c = ctype(t)
    if mutable or t.kind in ("int", "float", "bool", "DType") or t.kind == "Optional" and (
            t.arg.kind in ("int", "float", "bool", "DType")):  # type: ignore[union-attr]
        return c
    return f"const {c}&"


def default_init(t: ir.Type) -> str:
    """Initializer of a local declared before it is assigned (no uninitialized reads)."""
    return {"int": " = 0", "float": " = 0.0", "bool": " = false",
            "DType": " = DType::Float32"}.get(t.kind, "")


def float_literal(v: float) -> str:
    if math.isnan(v):
        return "std::numeric_limits<double>::quiet_NaN()"
    if math.isinf(v):
        return ("-" if v < 0 else "") + "std::numeric_limits<double>::infinity()"
    s = repr(float(v))
    return s if any(c in s for c in ".e") else s + ".0"


def int_literal(v: int) -> str:
    """An int64 literal: C++ has no negative literals, and 9223372036854775808 (the operand of
    ``-`` in the most negative value) is no ``int64_t``."""
    if v == -(2**63):
        return "INT64_MIN"
    return f"INT64_C({v})" if abs(v) >= 2**31 else str(v)


def const_text(e: ir.Const) -> str:
    v = e.value
    if v is None:
        if e.type.is_tensor or e.type == ir.NONE:
            return "Tensor()"
        return "std::vector<Tensor>()" if e.type == ir.TENSOR_LIST else "std::nullopt"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        if e.type == ir.FLOAT:
            return float_literal(float(v))
        return int_literal(v)
    if isinstance(v, float):
        return float_literal(v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _names_read(body) -> set[str]:
    found: set[str] = set()

    def visit(x):
        if isinstance(x, ir.Name):
            found.add(x.name)
        return x

    transform(body, visit)
    return found


def loop_var(name: str, t: ir.Type, body) -> str:
    """The declaration of a loop variable; ``[[maybe_unused]]`` when the body ignores it."""
    unused = "" if name in _names_read(body) else "[[maybe_unused]] "
    if t.kind == "Iter":
        return f"const auto& {name}"  # unpacked by unpack_lines
    return unused + (f"const Tensor& {cname(name)}" if t.is_tensor else f"int64_t {cname(name)}")


def unpack_lines(var: str, names, types, body) -> list[str]:
    """``int64_t i = std::get<0>(i_d_item);`` ... for ``for i, d in enumerate(...)``."""
    read = _names_read(body)
    out = []
    for k, (n, t) in enumerate(zip(names, types)):
        unused = "" if n in read else "[[maybe_unused]] "
        decl = f"const Tensor& {cname(n)}" if t.is_tensor else f"int64_t {cname(n)}"
        out.append(f"{unused}{decl} = std::get<{k}>({var});")
    return out


# Note [Prefix operators]: C++ lexes ``--`` and ``++`` as one token, so ``-`` written before an
# operand whose text starts with a sign would turn ``- -n`` into the pre-decrement ``--n``
# (which compiles, and is wrong) and ``-(-grad)`` into ``--grad`` (which does not). A prefix
# operator therefore parenthesises an operand starting with ``+`` or ``-``; every other
# operand is parenthesised by precedence alone (``wrap``).


class ExprEmitter:
    """``text(expr)`` -> C++; ``saved`` tells how a backward reads its captures."""

    def __init__(self, saved: dict[str, ir.SavedValue] | None = None):
        self.saved = saved or {}
        # (loop variable, sequence name) pairs whose indexing is in range (emit_cpp's
        # Note [Indexing in range])
        self.in_range: set[tuple[str, str]] = set()

    def text(self, e: ir.Expr) -> str:
        return self.emit(e)[0]

    def wrap(self, e: ir.Expr, max_prec: int) -> str:
        s, p = self.emit(e)
        return f"({s})" if p > max_prec else s

    def emit(self, e: ir.Expr) -> tuple[str, int]:
        fn: Callable = getattr(self, "e_" + type(e).__name__)
        return fn(e)

    def e_Const(self, e: ir.Const):
        s = const_text(e)
        return s, UNARY if s.startswith("-") else PRIMARY

    def e_DTypeConst(self, e: ir.DTypeConst):
        return _DTYPES[e.name], PRIMARY

    def e_Name(self, e: ir.Name):
        return cname(e.name), PRIMARY

    def e_ModuleConst(self, e: ir.ModuleConst):
        return cname(e.name), PRIMARY

    def e_Saved(self, e: ir.Saved):
        sv = self.saved.get(e.name)
        if e.what != "value":
            return f"{e.name}_{e.what}_", PRIMARY
        if sv is not None and sv.storage == "attribute":
            return f"{e.name}_", PRIMARY
        return cname(e.name), PRIMARY

    def e_Unwrap(self, e: ir.Unwrap):
        v = e.value
        if isinstance(v, ir.Saved) and v.name in self.saved and self.saved[v.name].unwrap:
            return self.emit(v)
        return "*" + self.wrap(v, UNARY), UNARY

    def e_Meta(self, e: ir.Meta):
        method = {"shape": "sizes", "ndim": "dim", "dtype": "dtype", "numel": "numel"}[e.attr]
        return f"{self.wrap(e.value, PRIMARY)}.{method}()", PRIMARY

    def infix(self, op: str, left: ir.Expr, right: ir.Expr):
        p = _PREC[op]
        return f"{self.wrap(left, p)} {op} {self.wrap(right, p - 1)}", p

    def e_Num(self, e: ir.Num):
        if e.op in _INFIX_NUM:
            return self.infix(_INFIX_NUM[e.op], e.left, e.right)
        return f"py::{e.op}({self.text(e.left)}, {self.text(e.right)})", PRIMARY

    def prefix(self, op: str, operand: ir.Expr):
        """``op`` applied to ``operand``; Note [Prefix operators]."""
        s = self.wrap(operand, UNARY)
        return (f"{op}({s})" if s[:1] in "+-" else op + s), UNARY

    def e_Neg(self, e: ir.Neg):
        return self.prefix("-", e.value)

    def e_Not(self, e: ir.Not):
        return self.prefix("!", e.value)

    def e_Compare(self, e: ir.Compare):
        if e.op in ("in", "notin"):
            s = f"py::contains({self.text(e.right)}, {self.text(e.left)})"
            return ("!" + s, UNARY) if e.op == "notin" else (s, PRIMARY)
        return self.infix(_CMP[e.op], e.left, e.right)

    def e_IsNone(self, e: ir.IsNone):
        v = e.value
        if v.type == ir.NONE:
            return ("false" if e.negate else "true"), PRIMARY
        method = "defined" if v.type.is_tensor else "has_value"
        s = f"{self.wrap(v, PRIMARY)}.{method}()"
        return (s, PRIMARY) if e.negate else ("!" + s, UNARY)

    def e_BoolOp(self, e: ir.BoolOp):
        op = "&&" if e.op == "and" else "||"
        p = _PREC[op]
        parts = []
        for i, v in enumerate(e.values):
            s, vp = self.emit(v)
            # `a && b || c` needs no parentheses in C++, but gcc's -Wparentheses (an error
            # under -Werror) asks for them: an && operand of || is always parenthesised
            if vp > (p - 1 if i else p) or (op == "||" and vp == _PREC["&&"]):
                s = f"({s})"
            parts.append(s)
        return f" {op} ".join(parts), p

    def e_IfExp(self, e: ir.IfExp):
        then, orelse = self.branch(e.then, e.type), self.branch(e.orelse, e.type)
        return f"{self.wrap(e.cond, TERNARY - 1)} ? {then} : {orelse}", TERNARY

    def branch(self, v: ir.Expr, t: ir.Type) -> str:
        s = self.wrap(v, TERNARY - 1)
        if t.is_optional and not t.is_tensor:
            return s if (isinstance(v, ir.Const) and v.value is None) or v.type == t else (
                f"{ctype(t)}({self.text(v)})")
        if t == ir.FLOAT and v.type != ir.FLOAT and not isinstance(v, ir.Const):
            return f"static_cast<double>({self.text(v)})"
        return s

    def e_TensorOp(self, e: ir.TensorOp):
        if e.op in _INFIX_TENSOR:
            return self.infix(_INFIX_TENSOR[e.op], *e.args)
        if e.op == "neg":
            return self.prefix("-", e.args[0])
        return f"ops::{e.op}({', '.join(self.text(a) for a in e.args)})", PRIMARY

    def e_Call(self, e: ir.Call):
        args = ", ".join(self.text(a) for a in e.args)
        if e.kind == "float":
            return f"static_cast<double>({args})", PRIMARY
        if e.kind == "range":
            return f"py::range({args}).to_vector()", PRIMARY
        prefix = {"kernel": "kernel::", "op": "ops::", "helper": "helpers::", "builtin": "py::",
                  "math": "std::"}[e.kind]
        name = cname(e.name) if e.kind == "helper" else e.name
        return f"{prefix}{name}({args})", PRIMARY

    def iter_text(self, e: ir.Expr) -> str:
        if isinstance(e, ir.Call) and e.kind == "range":
            return f"py::range({', '.join(self.text(a) for a in e.args)})"
        return self.text(e)

    def e_MakeTuple(self, e: ir.MakeTuple):
        elems = ", ".join(self.text(x) for x in e.elems)
        if e.type.kind == "Tuple":
            return f"std::make_tuple({elems})", PRIMARY
        return f"{ctype(e.type)}{{{elems}}}", PRIMARY

    def e_Index(self, e: ir.Index):
        if e.value.type.kind == "Tuple":
            return f"std::get<{e.index.value}>({self.text(e.value)})", PRIMARY  # type: ignore
        v, i = e.value, e.index
        if (isinstance(v, ir.Name) and isinstance(i, ir.Name)
                and (i.name, v.name) in self.in_range):
            return f"{cname(v.name)}[{cname(i.name)}]", PRIMARY
        return f"py::index({self.text(v)}, {self.text(i)})", PRIMARY

    def e_Slice(self, e: ir.Slice):
        parts = [self.text(e.value)] + [
            "std::nullopt" if p is None else self.text(p) for p in (e.start, e.stop)]
        if e.step is not None:
            parts.append(self.text(e.step))
        return f"py::slice({', '.join(parts)})", PRIMARY

    def e_SeqOp(self, e: ir.SeqOp):
        return f"py::{e.op}({self.text(e.left)}, {self.text(e.right)})", PRIMARY

    def e_Comprehension(self, e: ir.Comprehension):
        """``py::comprehension<Shape>(dims, [&](int64_t d) { return d + 1; })``; a condition
        is a second lambda before the element's."""
        lambdas: list[str] = []
        for body in ((self.conds_text(e),) if e.conds else ()) + (self.text(e.elt),):
            used = e.conds if len(lambdas) == 0 and e.conds else (e.elt,)
            param = loop_var(e.var, e.var_type, used)
            unpack = unpack_lines(e.var, e.unpack, e.unpack_types, used) if e.unpack else []
            lambdas.append(f"[&]({param}) {{ {' '.join(unpack + [f'return {body};'])} }}")
        args = ", ".join([self.iter_text(e.iter), *lambdas])
        return f"py::comprehension<{ctype(e.type)}>({args})", PRIMARY

    def conds_text(self, e: ir.Comprehension) -> str:
        return " && ".join(self.wrap(c, _PREC["&&"] - 1) for c in e.conds)

    def e_FString(self, e: ir.FString):
        parts = [f"std::string({const_text(ir.Const(e.loc, ir.STR, p))})" if isinstance(p, str)
                 else f"py::str({self.text(p)})" for p in e.parts]
        return (" + ".join(parts) if parts else 'std::string("")'), _PREC["+"]
