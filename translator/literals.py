"""Literals: the value of a constant expression of a formula module, evaluated statically.

Used by ``parse`` (module constants, formula options, parameter defaults) and ``fence`` (option
values). Input: a libcst expression and the constants bound so far. Output: its Python value
(numbers, bools, None, strings, tuples, arithmetic, ``math`` constants and functions), or
``NO_VALUE`` when it is not constant. Invariants: never raises; runs no user code.
"""

from __future__ import annotations

import math
from typing import Any

import libcst as cst

from .syntax import dotted_name

NO_VALUE = object()


_MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf}
_MATH_FUNCS = {"sqrt", "log", "exp", "log2", "log10", "sin", "cos", "tan", "atan", "erf", "tanh"}
_BINOPS = {
    cst.Add: lambda a, b: a + b,
    cst.Subtract: lambda a, b: a - b,
    cst.Multiply: lambda a, b: a * b,
    cst.Divide: lambda a, b: a / b,
    cst.FloorDivide: lambda a, b: a // b,
    cst.Modulo: lambda a, b: a % b,
    cst.Power: lambda a, b: a**b,
}


def literal_value(expr: cst.BaseExpression, env: dict[str, Any]) -> Any:
    """The value of a constant expression (numbers, bools, None, strings, tuples, arithmetic,
    ``math`` constants and functions, names in ``env``); ``NO_VALUE`` when not constant."""
    try:
        return _eval(expr, env)
    except (_NotConstant, ArithmeticError, ValueError, TypeError):
        return NO_VALUE


def is_constant(value: Any) -> bool:
    return value is not NO_VALUE


class _NotConstant(Exception):
    pass


def _eval(e: cst.BaseExpression, env: dict[str, Any]) -> Any:
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
