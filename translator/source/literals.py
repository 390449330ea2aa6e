"""Literals: the value of a constant expression of a formula module, evaluated statically.

Used by ``parse`` (module constants, formula options, parameter defaults) and ``fence`` (option
values). Input: a libcst expression and the constants bound so far. Output: its Python value
(numbers, bools, None, strings, tuples, arithmetic, ``math`` constants and functions),
``NO_VALUE`` when it is not constant, or ``TOO_LARGE`` when folding it would leave the
bounds of Note [Bounded folding]. Invariants: never raises; runs no user code; takes time
and memory bounded by the size of the expression.

Note [Bounded folding]: Python's integers are unbounded, so folding ``9 ** 9 ** 9`` would
hang and ``"a" * 10**10`` would exhaust memory. Every integer the compiled engine sees is an
``int64_t``, so a folded integer outside int64 is ``TOO_LARGE``; the steps of folding may
reach 256 bits (so ``2**63 - 1`` folds), checked before computing a power, whose size is known
from its operands; a repeated string or tuple may hold at most ``MAX_REPEAT`` items. Python's
own value is exact; a value C++ would hold differently is refused at its line rather than
wrapped.
"""

from __future__ import annotations

import math
from typing import Any

import libcst as cst

from .syntax import dotted_name

NO_VALUE = object()
TOO_LARGE = object()
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_REPEAT = 10_000
_WORKING_BITS = 256  # intermediate results of folding; the final value must fit int64


_MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf}
_MATH_FUNCS = {"sqrt", "log", "exp", "log2", "log10", "sin", "cos", "tan", "atan", "erf", "tanh"}


def fits_int64(v: Any) -> bool:
    """Whether ``v`` is not an int, or an int that an ``int64_t`` holds."""
    return not isinstance(v, int) or isinstance(v, bool) or INT64_MIN <= v <= INT64_MAX


def power_fits(base: Any, exp: Any, bits: int = 63) -> bool:
    """Whether ``base ** exp`` of ints stays below ``2 ** bits`` in magnitude (by default:
    within int64), decided without computing a huge power."""
    if not (isinstance(base, int) and isinstance(exp, int)) or exp < 0 or abs(base) <= 1:
        return True
    if exp > bits:
        return False
    v = base**exp
    return fits_int64(v) if bits == 63 else abs(v) < 2**bits


def _repeat(a: Any, b: Any) -> Any:
    for seq, n in ((a, b), (b, a)):
        if isinstance(seq, (str, tuple)) and isinstance(n, int) and len(seq) * n > MAX_REPEAT:
            raise _TooLarge
    return a * b


def _power(a: Any, b: Any) -> Any:
    if not power_fits(a, b, _WORKING_BITS):
        raise _TooLarge
    return a**b


_BINOPS = {
    cst.Add: lambda a, b: a + b,
    cst.Subtract: lambda a, b: a - b,
    cst.Multiply: _repeat,
    cst.Divide: lambda a, b: a / b,
    cst.FloorDivide: lambda a, b: a // b,
    cst.Modulo: lambda a, b: a % b,
    cst.Power: _power,
}


def literal_value(expr: cst.BaseExpression, env: dict[str, Any]) -> Any:
    """The value of a constant expression (numbers, bools, None, strings, tuples, arithmetic,
    ``math`` constants and functions, names in ``env``); ``NO_VALUE`` when not constant;
    ``TOO_LARGE`` when out of bounds (Note [Bounded folding])."""
    try:
        v = _eval(expr, env)
        if not fits_int64(v):
            raise _TooLarge
        return v
    except _TooLarge:
        return TOO_LARGE
    except (_NotConstant, ArithmeticError, ValueError, TypeError, RecursionError):
        return NO_VALUE


def is_constant(value: Any) -> bool:
    return value is not NO_VALUE and value is not TOO_LARGE


class _NotConstant(Exception):
    pass


class _TooLarge(Exception):
    pass


def _eval(e: cst.BaseExpression, env: dict[str, Any]) -> Any:
    v = _eval_unchecked(e, env)
    if isinstance(v, int) and abs(v) >= 2**_WORKING_BITS:
        raise _TooLarge
    return v


def _eval_unchecked(e: cst.BaseExpression, env: dict[str, Any]) -> Any:
    if isinstance(e, (cst.Integer, cst.Float)):
        return e.evaluated_value
    if isinstance(e, (cst.SimpleString, cst.ConcatenatedString)):
        v = e.evaluated_value
        if isinstance(v, str):
            return v
        raise _NotConstant
    if isinstance(e, cst.Name):
        if e.value in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[e.value]
        if e.value in env:
            return env[e.value]
        raise _NotConstant
    if isinstance(e, (cst.Tuple, cst.List)):
        if any(isinstance(el, cst.StarredElement) for el in e.elements):
            raise _NotConstant
        return tuple(_eval(el.value, env) for el in e.elements)
    if isinstance(e, cst.UnaryOperation):
        v = _eval(e.expression, env)
        if isinstance(e.operator, cst.Minus):
            return -v
        if isinstance(e.operator, cst.Plus):
            return +v
        if isinstance(e.operator, cst.Not):
            return not v
        raise _NotConstant
    if isinstance(e, cst.BinaryOperation) and type(e.operator) in _BINOPS:
        return _BINOPS[type(e.operator)](_eval(e.left, env), _eval(e.right, env))
    if isinstance(e, cst.Attribute) and dotted_name(e) in {f"math.{k}" for k in _MATH_CONSTANTS}:
        return _MATH_CONSTANTS[e.attr.value]
    if isinstance(e, cst.Call) and not any(a.keyword or a.star for a in e.args):
        name = dotted_name(e.func)
        if name and name.startswith("math.") and name[5:] in _MATH_FUNCS:
            return getattr(math, name[5:])(*(_eval(a.value, env) for a in e.args))
    raise _NotConstant
