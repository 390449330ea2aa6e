"""Diagnostic codes: the registry of every translator error's stable code, title and meaning.

Shared by every stage: ``diagnostics.make_diagnostic`` accepts only a code registered here, the
rejection corpus (tests/translator/corpus/reject) holds one file per code, and the table in
docs/DIAGNOSTICS.md is generated from ``REGISTRY`` (``render_table``; a test fails with a diff
when it is stale). Note [Diagnostic codes]: add new codes at the end of a family, never
renumber. T1xx: the subset and the structure of a formula; T2xx: the capture rule; T3xx:
kernels and types (the front end); T4xx: what the compiled engine cannot express (the back
end, ``lower``/``verify``; ``python -m translator check`` runs it too, so a formula the front
end accepts but C++ cannot express is still refused at its line).
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Code:
    code: str
    title: str  # a few words, for indexes
    meaning: str  # one or two sentences: what the code refuses


REGISTRY: dict[str, Code] = {c.code: c for c in (
    Code('T100', 'syntax error',
         'the file is not valid Python (syntax error)'),
    Code('T101', 'unsupported import',
         'unsupported import (only ``from transgrad.lang import ...`` and ``import math``)'),
    Code('T102', 'unsupported module-level statement',
         'unsupported module-level statement (imports, formulas, helpers, numeric constants)'),
    Code('T103', 'unsupported statement',
         'unsupported statement inside a formula or helper (while, try, with, class, assert, '
         'item/attribute assignment, expression statements, async def, for-else)'),
    Code('T104', 'unsupported expression',
         'unsupported expression (dict/set displays and comprehensions, f-strings outside a '
         'raise, ``*args`` in calls, an uncalled ``kernel.NAME``, ``...``, await, yield)'),
    Code('T105', 'unknown name',
         'unknown name (not a parameter, local, ``transgrad.lang`` name, helper or constant), or'
         ' another formula called directly instead of through ``ops``'),
    Code('T106', 'unsupported decorator or option',
         'unsupported or repeated decorator, or a bad formula option (values are literals)'),
    Code('T107', 'formula structure',
         'formula structure: a formula with a backward ends with ``return outputs, backward`` '
         '(distinct names) and returns nowhere else; a composite returns an expression'),
    Code('T108', 'nested function',
         'more than one ``def backward``, or a ``def backward`` inside a branch or loop'),
    Code('T109', 'backward parameters',
         'backward parameters do not match the differentiable + hidden outputs'),
    Code('T110', 'outputs named in options',
         '``differentiable_outputs`` / ``hidden_outputs`` name something that is not an output'),
    Code('T111', 'unsupported parameter kind',
         'unsupported parameter kind (``*args``, ``**kwargs``, keyword-only, positional-only)'),
    Code('T112', 'unsupported call',
         'unsupported call (a builtin or function outside the formula language)'),
    Code('T113', 'shadowed name',
         'a local name shadows a name resolved at module level (``ops``, ``kernel``, a helper, '
         '...)'),
    Code('T114', 'nesting too deep',
         'an expression nested too deeply to analyse (checked before parsing)'),
    Code('T115', 'number out of range',
         'a number C++ cannot hold: an integer outside int64 (a literal, a module constant, a '
         'default or constant arithmetic), or a huge repeated string or tuple'),
    Code('T201', 'captured tensor intermediate',
         'backward captures a tensor intermediate of the forward'),
    Code('T202', 'captured re-bound parameter',
         'backward captures a parameter that the forward re-binds'),
    Code('T203', 'captured name bound more than once',
         'backward captures a name bound more than once in the forward'),
    Code('T204', 'captured name re-bound after backward',
         'backward captures a name re-bound after ``def backward``'),
    Code('T205', 'captured scalar read from tensor data',
         'backward captures a scalar read out of tensor data (``kernel.item``, through '
         'arithmetic, helpers, or a branch/loop on such a value)'),
    Code('T206', 'capture through default argument',
         'capture smuggled through a default argument of backward'),
    Code('T207', 'nonlocal/global',
         '``nonlocal`` / ``global`` in a formula'),
    Code('T208', 'lambda or nested closure',
         'lambda or nested function (other than ``def backward``) in a formula or helper'),
    Code('T209', 'captured mutable container',
         'backward reads a mutable container (list, dict, set) built in the forward'),
    Code('T210', 'assignment expression',
         'assignment expression (walrus ``:=``) in a formula'),
    Code('T211', 'captured tensor from tuple unpacking',
         'backward captures a tensor bound by tuple unpacking'),
    Code('T212', 'captured loop variable',
         'backward captures a loop or comprehension variable'),
    Code('T301', 'unknown kernel',
         'unknown kernel (not declared in translator/signatures.py)'),
    Code('T302', 'kernel arity',
         'wrong number of arguments to a kernel'),
    Code('T303', 'kernel keyword arguments',
         'unknown, duplicate or missing keyword argument to a kernel'),
    Code('T304', 'kernel in backward',
         '``kernel.*`` inside a backward without ``once_differentiable=True``'),
    Code('T305', 'kernel argument type',
         'a tensor passed where a kernel expects a non-tensor, or the reverse'),
    Code('T306', 'parameter type',
         'missing or unsupported parameter / return type annotation'),
    Code('T307', 'branch on tensor data',
         'branch or boolean test on tensor data (``if t:``, ``t and ...``)'),
    Code('T308', 'unsupported tensor attribute',
         'unsupported tensor attribute (only ``shape``, ``ndim``, ``dtype``, ``numel``)'),
    Code('T309', 'empty reduction dims',
         'a literal empty ``dims`` to a reduction kernel (it reduces nothing; torch reduces '
         'every dimension)'),
    Code('T401', 'construct the compiled engine cannot express',
         'a construct the compiled engine cannot express (chained assignment, ``for``-``else``, '
         'an op for an operator that has none, ...)'),
    Code('T402', 'type mismatch',
         'type mismatch (e.g. a float where an int is declared, branches of different types)'),
    Code('T403', 'unknown op or helper',
         'unknown op or helper, or a formula name defined twice'),
    Code('T404', 'wrong arguments to an op or helper',
         'wrong arguments to an op or helper'),
    Code('T405', 'a local bound to two types',
         'a local bound to two types (a C++ local has one type)'),
    Code('T406', 'a name possibly unbound where read',
         'a name possibly unbound where it is read'),
    Code('T407', 'backward grads/returns do not match',
         "the backward's grads or returned gradients do not match the formula"),
    Code('T408', 'int ** int with a non-literal exponent',
         '``int ** int`` with a non-literal exponent (its type would depend on the value)'),
    Code('T409', 'truth value of a tensor',
         'truth value of a tensor (chained or ``in`` comparisons of tensors)'),
    Code('T410', 'a path without return',
         'a path through a helper, composite or backward without a ``return``'),
    Code('T411', 'an operator whose op is not defined',
         'an operator on tensors whose op no formula module defines'),
    Code('T412', 'an output that is not a fresh tensor',
         'an output that is not a fresh tensor (a parameter returned as an output)'),
    Code('T413', 'unsupported parameter or return type',
         'a parameter or return type the compiled engine cannot take'),
)}

CODES: dict[str, str] = {code: c.title for code, c in REGISTRY.items()}


def render_table() -> str:
    """docs/DIAGNOSTICS.md: the registry as a Markdown table."""
    lines = ["# Translator diagnostics", "",
             "Generated from `translator/diagnostic_codes.py` (`render_table`); do not edit.",
             "Each code is rendered as `path:line:col: error[CODE]: message`, the source line, a",
             "caret and a `hint:`; `tests/translator/corpus/reject` holds an example of each.", "",
             "| code | title | meaning |", "|---|---|---|"]
    lines += [f"| {c.code} | {c.title} | {c.meaning} |" for c in REGISTRY.values()]
    return "\n".join(lines) + "\n"
