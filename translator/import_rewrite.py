"""The yaml importer's expression rewriter: a parsed C++ backward expression -> formula-language
Python source.

Stage: between ``cpp_expr_parse`` and ``import_yaml``. Input: an ``Expr`` tree and a ``Scope``
(the entry's parameters with their kinds, the helpers and ops that exist). Output: a ``Rewritten``
(Python source text, the helpers and ops it calls), or ``Untranslatable`` with a sentence saying
which construct stopped it.

Every value carries a kind (tensor, scalar, int, bool, shape, dtype, none) so that the choices
torch's C++ makes by overloading are made here explicitly: ``self.pow(2)`` is ``ops.pow_scalar``,
``self.pow(other)`` is ``ops.pow``; ``x.sym_sizes()`` is ``x.shape``.

Note [Real dtypes only]: transgrad has no complex dtype in formulas, so ``.conj()``,
``.conj_physical()``, ``.resolve_conj()`` and ``handle_r_to_c(type, e)`` are the identity, and
torch's ``sgn`` is ``sign``. The importer says so in each module it writes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .cpp_expr_parse import (
    Binary,
    Braces,
    Call,
    Expr,
    Index,
    Member,
    Name,
    Num,
    Str,
    Ternary,
    Unary,
)

TENSOR, SCALAR, INT, BOOL, SHAPE, DTYPE, NONE = (
    "tensor", "scalar", "int", "bool", "shape", "dtype", "none")
_NUMERIC = (SCALAR, INT, BOOL)


class Untranslatable(Exception):
    """An expression outside what the rewriter reads; the message is the reason, for the report."""


@dataclasses.dataclass(frozen=True)
class Value:
    src: str
    kind: str
    atomic: bool = True  # needs no parentheses as an operand


@dataclasses.dataclass
class Scope:
    names: dict[str, str]   # C++ name -> kind (params, grad, result)
    py_names: dict[str, str]  # C++ name -> Python name (``lambda`` -> ``lambda_``)
    helpers: dict[str, str]   # helper name -> return kind
    ops: dict[str, tuple[Param, ...]]  # formulas ``ops.NAME`` may call, with their parameters
    torch_sigs: dict[str, list[tuple[Param, ...]]]  # torch function -> its overloads
    used_helpers: set[str] = dataclasses.field(default_factory=set)


@dataclasses.dataclass(frozen=True)
class Rewritten:
    src: str
    helpers: frozenset[str]


# Identity on real dtypes: Note [Real dtypes only].
_IDENTITY_METHODS = frozenset({"conj", "conj_physical", "resolve_conj", "resolve_neg",
                               "contiguous", "toDouble", "toFloat", "to_dense"})
# torch name -> ops name, for elementwise tensor functions spelled differently here.
_RENAMED = {"sgn": "sign", "mm": "matmul", "bmm": "matmul", "mv": "matmul", "dot": "matmul",
            "matmul": "matmul"}
_CONSTANTS = {"M_PI": Value("math.pi", SCALAR), "M_LN2": Value("math.log(2.0)", SCALAR),
              "M_LN10": Value("math.log(10.0)", SCALAR), "true": Value("True", BOOL),
              "false": Value("False", BOOL), "c10::nullopt": Value("None", NONE),
              "std::nullopt": Value("None", NONE), "nullptr": Value("None", NONE),
              "at::Reduction::None": Value("0", INT), "at::Reduction::Mean": Value("1", INT),
              "at::Reduction::Sum": Value("2", INT)}
_STD_MATH = {"std::sqrt": "sqrt", "std::exp": "exp", "std::log": "log", "std::pow": "pow",
             "std::abs": "fabs", "std::sin": "sin", "std::cos": "cos"}
_PY_BINOP = {"+": "+", "-": "-", "*": "*", "/": "/", "%": "%", "==": "==", "!=": "!=",
             "<": "<", ">": ">", "<=": "<=", ">=": ">=", "&&": "and", "||": "or"}


def rewrite_expr(expr: Expr, scope: Scope) -> Rewritten:
    """The formula-language source of ``expr``; raises ``Untranslatable``."""
    scope.used_helpers = set()
    value = _Rewriter(scope).value(expr)
    if value.kind != TENSOR:
        raise Untranslatable(f"the gradient expression is a {value.kind}, not a tensor")
    return Rewritten(value.src, frozenset(scope.used_helpers))


class _Rewriter:
    def __init__(self, scope: Scope):
        self.scope = scope

    # -- leaves ---------------------------------------------------------------------------------

    def value(self, e: Expr) -> Value:
        if isinstance(e, Name):
            return self.name(e.id)
        if isinstance(e, Num):
            text = e.text + "0" if e.text.endswith(".") else e.text
            is_float = any(c in text for c in ".eE")
            return Value(text, SCALAR if is_float else INT)
        if isinstance(e, Str):
            raise Untranslatable(f"string argument {e.value!r}")
        if isinstance(e, Unary):
            return self.unary(e)
        if isinstance(e, Binary):
            return self.binary(e)
        if isinstance(e, Ternary):
            return self.ternary(e)
        if isinstance(e, Braces):
            items = [self.value(i) for i in e.items]
            if any(i.kind not in (INT,) for i in items):
                raise Untranslatable("a brace list of non-integers")
            return Value("(" + "".join(i.src + ", " for i in items).rstrip(" ") + ")", SHAPE)
        if isinstance(e, Member):
            return self.member(e)
        if isinstance(e, Index):
            obj, idx = self.value(e.obj), self.value(e.index)
            if obj.kind != SHAPE or idx.kind != INT:
                raise Untranslatable("subscript of something other than a shape (grads[i]?)")
            return Value(f"{obj.src}[{idx.src}]", INT)
        if isinstance(e, Call):
            return self.call(e)
        raise Untranslatable(f"expression {type(e).__name__}")

    def name(self, ident: str) -> Value:
        if ident in self.scope.names:
            return Value(self.scope.py_names.get(ident, ident), self.scope.names[ident])
        if ident in _CONSTANTS:
            return _CONSTANTS[ident]
        if ident in ("grads", "grad_input_mask"):
            raise Untranslatable(f"reads {ident!r} (several outputs or a joint formula)")
        raise Untranslatable(f"unknown name {ident!r}")

    # -- operators ------------------------------------------------------------------------------

    def unary(self, e: Unary) -> Value:
        v = self.value(e.operand)
        if e.op == "+":
            return v
        if e.op == "!":
            if v.kind == TENSOR:
                raise Untranslatable("logical not of a tensor")
            return Value(f"not {_paren(v)}", BOOL, False)
        return Value(f"-{_paren(v)}", v.kind if v.kind != BOOL else INT, False)

    def binary(self, e: Binary) -> Value:
        a, b = self.value(e.left), self.value(e.right)
        if e.op in ("&", "|"):
            if TENSOR in (a.kind, b.kind):
                raise Untranslatable(f"'{e.op}' of boolean tensors")
            return Value(f"{_paren(a)} {'and' if e.op == '&' else 'or'} {_paren(b)}", BOOL, False)
        op = _PY_BINOP[e.op]
        kinds = (a.kind, b.kind)
        if op in ("and", "or"):
            if TENSOR in kinds:
                raise Untranslatable(f"'{e.op}' of tensors")
            return Value(f"{_paren(a)} {op} {_paren(b)}", BOOL, False)
        if TENSOR in kinds:
            if not all(k in (TENSOR,) + _NUMERIC for k in kinds):
                raise Untranslatable(f"'{e.op}' of a tensor and a {kinds}")
            if op == "%":
                raise Untranslatable("'%' of tensors")
            if op in ("==", "!=", "<", ">", "<=", ">="):
                if a.kind != TENSOR:
                    raise Untranslatable("a comparison with the tensor on the right")
                return Value(f"{_paren(a)} {op} {_paren(b)}", TENSOR, False)
            return Value(f"{_paren(a)} {op} {_paren(b)}", TENSOR, False)
        if op in ("==", "!=", "<", ">", "<=", ">="):
            return Value(f"{_paren(a)} {op} {_paren(b)}", BOOL, False)
        if not all(k in _NUMERIC for k in kinds):
            raise Untranslatable(f"'{e.op}' of {kinds[0]} and {kinds[1]}")
        if op == "/" and kinds == (INT, INT):
            raise Untranslatable("integer division (C++ truncates)")
        kind = SCALAR if SCALAR in kinds or op == "/" else INT
        return Value(f"{_paren(a)} {op} {_paren(b)}", kind, False)

    def ternary(self, e: Ternary) -> Value:
        cond = self.value(e.cond)
        if cond.src in ("True", "False"):  # is_complex(): only the real branch is read
            return self.value(e.then if cond.src == "True" else e.orelse)
        if cond.kind == TENSOR:
            raise Untranslatable("a ternary on a tensor condition")
        a, b = self.value(e.then), self.value(e.orelse)
        kind = a.kind if a.kind == b.kind or b.kind == NONE else b.kind if a.kind == NONE else None
        if kind is None:
            if {a.kind, b.kind} <= set(_NUMERIC):
                kind = SCALAR
            else:
                raise Untranslatable(f"a ternary choosing between a {a.kind} and a {b.kind}")
        return Value(f"({_paren(a)} if {_paren(cond)} else {_paren(b)})", kind)

    # -- members and calls ----------------------------------------------------------------------

    def member(self, e: Member) -> Value:
        obj = self.value(e.obj)
        if e.name == "mT" and obj.kind == TENSOR:
            return Value(f"ops.transpose({obj.src}, -2, -1)", TENSOR)
        raise Untranslatable(f"member {e.name!r} read without a call")

    def call(self, e: Call) -> Value:
        fn = e.fn
        if isinstance(fn, Member):  # x.method(args)
            obj = self.value(fn.obj)
            return self.method(obj, fn.name, [self.value(a) for a in e.args])
        if isinstance(fn, Name):
            name = fn.id
            if name == "handle_r_to_c" and len(e.args) == 2:  # Note [Real dtypes only]
                return self.value(e.args[1])
            if name in ("not_implemented", "not_implemented_list"):
                raise Untranslatable("torch marks this derivative not implemented")
            args = [self.value(a) for a in e.args]
            if name in _STD_MATH:
                if any(a.kind not in _NUMERIC for a in args):
                    raise Untranslatable(f"{name} of a tensor")
                return Value(f"math.{_STD_MATH[name]}({_args(args)})", SCALAR)
            bare = name.removeprefix("at::")
            if bare in _STD_MATH.values() and args and all(a.kind in _NUMERIC for a in args):
                return Value(f"math.{bare}({_args(args)})", SCALAR)
            bare = bare.removesuffix("_symint")
            if bare in ("conj", "conj_physical", "resolve_conj") and len(args) == 1:
                return args[0]
            return self.function(bare, args)
        raise Untranslatable("a call of a computed function")

    def method(self, obj: Value, name: str, args: list[Value]) -> Value:
        name = name.removesuffix("_symint")
        if name in _IDENTITY_METHODS and not args:
            return obj
        if name in ("isComplex", "is_complex") and not args:  # Note [Real dtypes only]
            return Value("False", BOOL)
        if obj.kind == TENSOR:
            if name in ("sym_sizes", "sizes") and not args:
                return Value(f"{obj.src}.shape", SHAPE)
            if name in ("sym_size", "size") and len(args) == 1:
                return Value(f"{obj.src}.shape[{args[0].src}]", INT)
            if name == "dim" and not args:
                return Value(f"{obj.src}.ndim", INT)
            if name in ("sym_numel", "numel") and not args:
                return Value(f"{obj.src}.numel", INT)
            if name in ("scalar_type", "dtype", "options") and not args:
                return Value(f"{obj.src}.dtype", DTYPE)
            if name in ("sym_strides", "strides", "layout") and not args:
                return Value("None", NONE)  # dense strided tensors only: nothing to choose
            if name == "defined" and not args:
                return Value(f"{obj.src} is not None", BOOL, False)
            return self.function(name, [obj] + args)
        if obj.kind in _NUMERIC and name == "equal" and len(args) == 1:
            return Value(f"{_paren(obj)} == {_paren(args[0])}", BOOL, False)
        raise Untranslatable(f"method {name!r} of a {obj.kind}")

    def function(self, name: str, args: list[Value]) -> Value:
        """A torch function or FunctionsManual helper applied to translated arguments."""
        kinds = [a.kind for a in args]
        if name in ("not_implemented", "not_implemented_list"):
            raise Untranslatable("torch marks this derivative not implemented")
        for helper in (name, "at_" + name):  # a FunctionsManual helper, or an ATen composite
            if helper in self.scope.helpers:
                self.scope.used_helpers.add(helper)
                return Value(f"{helper}({_args(args)})", self.scope.helpers[helper])
        if name in ("sum_to", "sum_to_size") and len(args) == 2 and kinds == [TENSOR, SHAPE]:
            return self._op("sum_to", args)
        if name in ("masked_fill", "masked_fill_") and kinds[:2] == [TENSOR, TENSOR] \
                and len(args) == 3 and kinds[2] in _NUMERIC:  # in place on a temporary
            return self._op("masked_fill", args)
        if name == "where" and len(args) == 3 and kinds[0] == TENSOR and TENSOR in kinds[1:]:
            like = args[1] if kinds[1] == TENSOR else args[2]
            filled = [a if a.kind == TENSOR else Value(f"ops.zeros_like({like.src}) + {_paren(a)}",
                                                         TENSOR, False) for a in args[1:]]
            return self._op("where", [args[0]] + filled)
        if name == "scalar_tensor" and len(args) == 2 and kinds[0] in _NUMERIC \
                and kinds[1] == DTYPE:  # a 0-d tensor: broadcasts wherever it meets a tensor
            return Value(f"ops.zeros((), {args[1].src}) + {_paren(args[0])}", TENSOR, False)
        if name in ("zeros_like", "ones_like") and len(args) == 1 and kinds == [TENSOR]:
            return self._op(name, args)
        if name == "pow" and len(args) == 2 and kinds[0] == TENSOR:
            return self._op("pow_scalar" if kinds[1] in _NUMERIC else "pow", args)
        if name in ("mul", "add", "sub", "div") and len(args) == 2 and TENSOR in kinds:
            op = {"mul": "*", "add": "+", "sub": "-", "div": "/"}[name]
            return Value(f"{_paren(args[0])} {op} {_paren(args[1])}", TENSOR, False)
        if name == "neg" and kinds == [TENSOR]:
            return Value(f"-{_paren(args[0])}", TENSOR, False)
        if name in ("t", "mT") and kinds == [TENSOR]:
            return Value(f"ops.transpose({args[0].src}, -2, -1)", TENSOR)
        if name == "expand_as" and kinds == [TENSOR, TENSOR]:
            return Value(f"ops.expand({args[0].src}, {args[1].src}.shape)", TENSOR)
        if name == "to" and len(args) == 2 and kinds == [TENSOR, DTYPE]:
            return self._op("cast", args)
        if name == "sum" and kinds and kinds[0] == TENSOR:
            if len(args) == 1:
                return self._op("sum", args)
            dims = args[1]
            if dims.kind == INT:
                dims = Value(f"({dims.src},)", SHAPE)
            return self._op("sum", [args[0], dims] + args[2:])
        if name in ("unsqueeze", "squeeze") and kinds == [TENSOR, INT]:
            if name == "squeeze":
                return Value(f"ops.squeeze({args[0].src}, ({args[1].src},))", TENSOR)
            return self._op(name, args)
        op = _RENAMED.get(name, name)
        if op in self.scope.ops and TENSOR in kinds:
            if any(k == DTYPE for k in kinds):
                raise Untranslatable(f"{name} with a dtype argument")
            return self._adapted(name, op, args)
        raise Untranslatable(f"no translation for {name}({', '.join(kinds)})")

    def _adapted(self, name: str, op: str, args: list[Value]) -> Value:
        """``ops.op`` called with torch's ``name(args)``: Note [Arguments by name]."""
        if all(a.kind == TENSOR for a in args):
            overloads = [tuple(Param(f"t{i}", True) for i in range(len(args)))]
        else:
            overloads = [sig for sig in self.scope.torch_sigs.get(name, ())
                         if len(sig) >= len(args)
                         and all(p.tensor == (a.kind == TENSOR) for p, a in zip(sig, args))]
            if not overloads:
                raise Untranslatable(f"no torch signature of {name} to pass its arguments by name")
        for sig in overloads:
            adapted = adapt_args(sig, [a.src for a in args], self.scope.ops[op])
            if adapted is not None:
                return Value(f"ops.{op}({', '.join(adapted)})", TENSOR)
        raise Untranslatable(f"the arguments of {name} have no counterpart in ops.{op}")

    def _op(self, name: str, args: list[Value]) -> Value:
        if name not in self.scope.ops:
            raise Untranslatable(f"no op {name!r} in transgrad")
        return Value(f"ops.{name}({_args(args)})", TENSOR)


def _paren(v: Value) -> str:
    return v.src if v.atomic else f"({v.src})"


def _args(args: list[Value]) -> str:
    return ", ".join(a.src for a in args)


# ---------------------------------------------------------------------------------------------
# Argument adaptation (Note [Arguments by name])
#
# Note [Arguments by name]: torch's and transgrad's signatures of the same function may order
# their non-tensor parameters differently (torch's ``im2col(self, kernel_size, dilation,
# padding, stride)``, transgrad's ``im2col(x, kernel_size, stride, padding, dilation)``), so
# positional arguments are never passed across as they are. Tensors are matched in order;
# every other argument by its parameter's name (``_ALIASES`` for names spelled differently);
# an argument with no counterpart, or a required parameter left without one, makes the call
# untranslatable rather than wrong.

_ALIASES = {"end": "stop", "src": "source", "size": "shape"}


@dataclasses.dataclass(frozen=True)
class Param:
    """A parameter of a signature on either side: name, whether a tensor, whether defaulted."""

    name: str
    tensor: bool
    has_default: bool = False


def adapt_args(source: Sequence[Param], values: Sequence[str],
               target: Sequence[Param]) -> list[str] | None:
    """``values`` (one per leading ``source`` parameter) reordered for ``target``; None when a
    value has no counterpart or a required target parameter gets none."""
    if len(values) > len(source):
        return None
    tensors = [v for p, v in zip(source, values) if p.tensor]
    named = {_ALIASES.get(p.name, p.name): v for p, v in zip(source, values) if not p.tensor}
    out: list[str | None] = []
    for p in target:
        if p.tensor:
            out.append(tensors.pop(0) if tensors else None)
        else:
            out.append(named.pop(p.name, None))
    if tensors or named:
        return None
    while out and out[-1] is None and target[len(out) - 1].has_default:
        out.pop()
    if any(v is None for v in out):
        return None
    return [v for v in out if v is not None]
