"""Lower, calls: ``kernel.NAME(...)``, ``ops.NAME(...)``, helpers, builtins and ``math.*``
-> ``ir.Call`` (part of the ``lower`` stage).

Input: a libcst Call inside a formula, checked against ``signatures.KERNELS`` (kernels), every
formula / composite of the program (ops) and the module's helpers. Arguments are bound the way
Python binds them (positional, then keywords, then defaults), so the IR call always has one
argument per parameter, in order. Output: ``ir.Call`` typed by the callee's return type.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from . import ir
from .lower_cond import CondLowerer
from .lower_env import DTYPE_NAMES, parse_type
from .signatures import NUMBER_OPERAND_KERNELS
from .user_kernels import kernel_signature

# Calls are lowered for lower_expr.ExprLowerer; what they use of it (expr, truth, coerce, error,
# require_op, ...) is declared on its base CondLowerer, so this module needs no edge back to
# lower_expr (which imports lower_call).
ExprLowerer = CondLowerer

_MATH_FLOAT = {"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "erf",
               "erfc", "log1p", "expm1", "log2", "log10", "fabs", "lgamma", "atan2", "hypot",
               "copysign", "fmod"}
_MATH_RUNTIME = {"sqrt": ("math_sqrt", ir.FLOAT), "log": ("math_log", ir.FLOAT),
                 "exp": ("math_exp", ir.FLOAT), "floor": ("floor", ir.INT),
                 "ceil": ("ceil", ir.INT), "prod": ("prod", ir.INT),
                 "isfinite": ("isfinite", ir.BOOL), "isnan": ("isnan", ir.BOOL),
                 "isinf": ("isinf", ir.BOOL), "pow": ("pow_float", ir.FLOAT)}
_SigParam = tuple[str, ir.Type, ir.Expr | None]  # name, type, default (None: required)


def lower_call(lw: ExprLowerer, node: cst.Call, loc) -> ir.Expr:
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


def bind_args(lw: ExprLowerer, node: cst.Call, params: Sequence[_SigParam], callee: str,
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


def _kernel(lw: ExprLowerer, node: cst.Call, name: str, loc) -> ir.Expr:
    sig = kernel_signature(name)
    if sig is None:
        raise lw.error("T403", loc, f"kernel.{name} is not declared in translator/signatures.py",
                       "use a declared kernel")
    first = node.args[0].value if node.args and node.args[0].keyword is None else None
    params = [(p.name, parse_type(p.type), _kernel_default(lw, p, first, loc))
              for p in sig.params]
    args = _number_operand(lw, node, name, loc)
    if args is None:
        args = bind_args(lw, node, params, f"kernel.{name}", loc)  # type: ignore[arg-type]
    ret = parse_type(sig.returns)
    assert ret is not None
    return ir.Call(loc, ret, "kernel", name, args)


def _kernel_default(lw: ExprLowerer, p, first, loc) -> ir.Expr | None:
    """The value the translator supplies for kernel parameter ``p`` left out (Note [Kernel
    defaults]): ``keepdim=False``, or ``dims=all`` as ``range(x.ndim)`` of a variable ``x``."""
    if p.default in ("False", "True"):
        return ir.Const(loc, ir.BOOL, p.default == "True")
    if p.default == "all" and isinstance(first, cst.Name):
        x = lw.expr(first)
        if x.type.is_tensor:
            return ir.Call(loc, ir.SHAPE, "range", "range", (ir.Meta(loc, ir.INT, x, "ndim"),))
    return None


def _number_operand(lw: ExprLowerer, node: cst.Call, name: str, loc
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


def _scalar_like(lw: ExprLowerer, other: ir.Expr, number: ir.Expr, name: str) -> ir.Expr:
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


def signature(lw: ExprLowerer, params, callee: str, loc) -> list[_SigParam]:
    out = []
    for p in params:
        t = parse_type(p.type)
        if t is None:
            raise lw.error("T413", loc, f"{callee} has parameter `{p.name}: {p.type}`, a type "
                           "the compiled engine cannot take", "fix that formula's annotation")
        default = None
        if p.default is not None:
            default = value_expr(p.default_value, t, loc)
        out.append((p.name, t, default))
    return out


def op_return_type(f) -> ir.Type:
    if f.composite:
        t = parse_type(f.returns)
        return t if t is not None else ir.TENSOR
    visible = f.visible_outputs
    return ir.TENSOR if len(visible) == 1 else ir.tuple_of(*[ir.TENSOR] * len(visible))


def _op(lw: ExprLowerer, node: cst.Call, name: str, loc) -> ir.Expr:
    if name in lw.program.formulas:
        f, _ = lw.program.formulas[name]
        args = bind_args(lw, node, signature(lw, f.params, f"ops.{name}", loc),
                         f"ops.{name}", loc)
        return ir.Call(loc, op_return_type(f), "op", name, args)
    if name in lw.program.helpers:
        _h, hmod = lw.program.helpers[name]
        if hmod is not lw.mod:
            raise lw.error("T403", loc, f"ops.{name} is a helper of {hmod.path}; helpers are "
                           "compiled into their own module", "make it a formula, or move the "
                           "helper into this module")
        return _helper(lw, node, name, loc)
    raise lw.error("T403", loc, f"ops.{name} is not a formula, composite or helper of any "
                   "formula module", "define it with @formula, or use an existing op")


def _helper(lw: ExprLowerer, node: cst.Call, name: str, loc) -> ir.Expr:
    h = next(h for h in lw.mod.helpers if h.name == name)
    args = bind_args(lw, node, signature(lw, h.params, f"helper {name}", loc), name, loc)
    ret = parse_type(h.returns)
    if ret is None:
        raise lw.error("T413", loc, f"helper {name} has no usable return annotation",
                       "annotate it, e.g. -> Tensor")
    return ir.Call(loc, ret, "helper", name, args)


def _args(lw: ExprLowerer, node: cst.Call, name: str, lo: int, hi: int, loc) -> list[ir.Expr]:
    if any(a.keyword is not None for a in node.args) or not lo <= len(node.args) <= hi:
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        raise lw.error("T404", loc, f"{name}() takes {want} positional argument(s) here",
                       "pass positional arguments only")
    return [lw.expr(a.value) for a in node.args]


def _math(lw: ExprLowerer, node: cst.Call, name: str, loc) -> ir.Expr:
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


def _builtin(lw: ExprLowerer, node: cst.Call, name: str, loc) -> ir.Expr:
    if name == "len":
        (x,) = _args(lw, node, name, 1, 1, loc)
        if x.type not in (ir.SHAPE, ir.TENSOR_LIST):
            raise lw.error("T402", loc, f"len() of a {x.type}", "use x.ndim for a tensor")
        return ir.Call(loc, ir.INT, "builtin", "len", (x,))
    if name == "range":
        args = [lw.coerce(a, ir.INT, "a range bound") for a in _args(lw, node, name, 1, 3, loc)]
        return ir.Call(loc, ir.SHAPE, "range", "range", tuple(args))
    if name in ("tuple", "list"):
        if len(node.args) == 0:
            return ir.MakeTuple(loc, ir.SHAPE, ())
        (x,) = _args(lw, node, name, 1, 1, loc)
        if x.type not in (ir.SHAPE, ir.TENSOR_LIST):
            raise lw.error("T402", loc, f"{name}() of a {x.type}", "convert shapes and lists")
        return x
    if name in ("min", "max"):
        args = _args(lw, node, name, 1, 8, loc)
        if len(args) == 1:
            if args[0].type != ir.SHAPE:
                raise lw.error("T402", loc, f"{name}() of one {args[0].type}",
                               f"{name}() of a shape, or of several numbers")
            return ir.Call(loc, ir.INT, "builtin", name, tuple(args))
        if not all(a.type.is_number for a in args):
            raise lw.error("T402", loc, f"{name}() of non-numbers", "use ops.maximum/minimum "
                           "for tensors")
        t = ir.FLOAT if any(a.type == ir.FLOAT for a in args) else ir.INT
        return ir.Call(loc, t, "builtin", name, tuple(args))
    if name == "abs":
        (x,) = _args(lw, node, name, 1, 1, loc)
        if x.type.is_tensor:
            return ir.Call(loc, ir.TENSOR, "op", lw.require_op("abs", loc, "abs()"), (x,))
        if not x.type.is_number:
            raise lw.error("T402", loc, f"abs() of a {x.type}", "abs() of a number or tensor")
        return ir.Call(loc, ir.INT if x.type == ir.BOOL else x.type, "builtin", "abs", (x,))
    if name in ("int", "float", "bool"):
        (x,) = _args(lw, node, name, 1, 1, loc)
        if name == "bool":
            return lw.truth(x)
        if not x.type.is_number:
            raise lw.error("T402", loc, f"{name}() of a {x.type}", f"{name}() of a number")
        if name == "int":
            return x if x.type == ir.INT else ir.Call(loc, ir.INT, "builtin", "to_int", (x,))
        return x if x.type == ir.FLOAT else ir.Call(loc, ir.FLOAT, "float", "float", (x,))
    if name in ("all", "any"):
        (x,) = _args(lw, node, name, 1, 1, loc)
        if x.type != ir.SHAPE:
            raise lw.error("T402", loc, f"{name}() of a {x.type}",
                           f"{name}() of a comprehension of conditions")
        return ir.Call(loc, ir.BOOL, "builtin", name, (x,))
    if name == "round":
        (x,) = _args(lw, node, "round", 1, 1, loc)
        if not x.type.is_number:
            raise lw.error("T402", loc, f"round() of a {x.type}", "round() of a number")
        return x if x.type != ir.FLOAT else ir.Call(loc, ir.INT, "builtin", "round", (x,))
    if name in ("sorted", "reversed", "sum"):
        (x,) = _args(lw, node, name, 1, 1, loc)
        if x.type != ir.SHAPE:
            raise lw.error("T402", loc, f"{name}() of a {x.type}", f"{name}() of a shape/dims")
        return ir.Call(loc, ir.INT if name == "sum" else ir.SHAPE, "builtin", name, (x,))
    raise lw.error("T401", loc, f"`{name}(...)` cannot be translated",
                   "call kernel.NAME, ops.NAME, a @helper of this module, math.NAME, or len, "
                   "range, min, max, abs, int, float, tuple, sorted, sum")
