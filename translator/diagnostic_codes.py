"""Diagnostic codes: the stable code of every translator error, and what it means.

Shared by every stage: ``diagnostics.make_diagnostic`` accepts only a code listed here, and the
rejection corpus (tests/translator/corpus/reject) holds one file per code.

Codes (Note [Diagnostic codes]; add new codes at the end of a family, never renumber):

======  =====================================================================================
code    meaning
======  =====================================================================================
T100    the file is not valid Python (syntax error)
T101    unsupported import (only ``from transgrad.lang import ...`` and ``import math``)
T102    unsupported module-level statement (imports, formulas, helpers, numeric constants)
T103    unsupported statement inside a formula or helper (while, try, with, class, assert,
        item/attribute assignment, expression statements, async def, for-else)
T104    unsupported expression (dict/set displays and comprehensions, f-strings outside a
        raise, ``*args`` in calls, an uncalled ``kernel.NAME``, ``...``, await, yield)
T105    unknown name (not a parameter, local, ``transgrad.lang`` name, helper or constant),
        or another formula called directly instead of through ``ops``
T106    unsupported or repeated decorator, or a bad formula option (values are literals)
T107    formula structure: a formula with a backward ends with ``return outputs, backward``
        (distinct names) and returns nowhere else; a composite returns an expression
T108    more than one ``def backward``, or a ``def backward`` inside a branch or loop
T109    backward parameters do not match the differentiable + hidden outputs
T110    ``differentiable_outputs`` / ``hidden_outputs`` name something that is not an output
T111    unsupported parameter kind (``*args``, ``**kwargs``, keyword-only, positional-only)
T112    unsupported call (a builtin or function outside the formula language)
T113    a local name shadows a name resolved at module level (``ops``, ``kernel``, a helper, ...)
T114    an expression nested too deeply to analyse (checked before parsing)
T115    a number C++ cannot hold: an integer outside int64 (a literal, a module constant, a
        default or constant arithmetic), or a huge repeated string or tuple
T201    backward captures a tensor intermediate of the forward
T202    backward captures a parameter that the forward re-binds
T203    backward captures a name bound more than once in the forward
T204    backward captures a name re-bound after ``def backward``
T205    backward captures a scalar read out of tensor data (``kernel.item``, through
        arithmetic, helpers, or a branch/loop on such a value)
T206    capture smuggled through a default argument of backward
T207    ``nonlocal`` / ``global`` in a formula
T208    lambda or nested function (other than ``def backward``) in a formula or helper
T209    backward reads a mutable container (list, dict, set) built in the forward
T210    assignment expression (walrus ``:=``) in a formula
T211    backward captures a tensor bound by tuple unpacking
T212    backward captures a loop or comprehension variable
T301    unknown kernel (not declared in translator/signatures.py)
T302    wrong number of arguments to a kernel
T303    unknown, duplicate or missing keyword argument to a kernel
T304    ``kernel.*`` inside a backward without ``once_differentiable=True``
T305    a tensor passed where a kernel expects a non-tensor, or the reverse
T306    missing or unsupported parameter / return type annotation
T307    branch or boolean test on tensor data (``if t:``, ``t and ...``)
T308    unsupported tensor attribute (only ``shape``, ``ndim``, ``dtype``, ``numel``)
T401    a construct the compiled engine cannot express (chained assignment, ``for``-``else``,
        an op for an operator that has none, ...)
T402    type mismatch (e.g. a float where an int is declared, branches of different types)
T403    unknown op or helper, or a formula name defined twice
T404    wrong arguments to an op or helper
T405    a local bound to two types (a C++ local has one type)
T406    a name possibly unbound where it is read
T407    the backward's grads or returned gradients do not match the formula
T408    ``int ** int`` with a non-literal exponent (its type would depend on the value)
T409    truth value of a tensor (chained or ``in`` comparisons of tensors)
T410    a path through a helper, composite or backward without a ``return``
T411    an operator on tensors whose op no formula module defines
T412    an output that is not a fresh tensor (a parameter returned as an output)
T413    a parameter or return type the compiled engine cannot take
======  =====================================================================================

T4xx codes come from the back end (``lower``/``verify``); ``python -m translator check`` runs it
too, so a formula the front end accepts but C++ cannot express is still refused at its line.
"""

CODES = {
    "T100": "syntax error",
    "T101": "unsupported import",
    "T102": "unsupported module-level statement",
    "T103": "unsupported statement",
    "T104": "unsupported expression",
    "T105": "unknown name",
    "T106": "unsupported decorator or option",
    "T107": "formula structure",
    "T108": "nested function",
    "T109": "backward parameters",
    "T110": "outputs named in options",
    "T111": "unsupported parameter kind",
    "T112": "unsupported call",
    "T113": "shadowed name",
    "T114": "nesting too deep",
    "T115": "number out of range",
    "T201": "captured tensor intermediate",
    "T202": "captured re-bound parameter",
    "T203": "captured name bound more than once",
    "T204": "captured name re-bound after backward",
    "T205": "captured scalar read from tensor data",
    "T206": "capture through default argument",
    "T207": "nonlocal/global",
    "T208": "lambda or nested closure",
    "T209": "captured mutable container",
    "T210": "assignment expression",
    "T211": "captured tensor from tuple unpacking",
    "T212": "captured loop variable",
    "T301": "unknown kernel",
    "T302": "kernel arity",
    "T303": "kernel keyword arguments",
    "T304": "kernel in backward",
    "T305": "kernel argument type",
    "T306": "parameter type",
    "T307": "branch on tensor data",
    "T308": "unsupported tensor attribute",
    # back end (lower / verify); see Note [Back-end codes] in lower_env.py
    "T401": "construct the compiled engine cannot express",
    "T402": "type mismatch",
    "T403": "unknown op or helper",
    "T404": "wrong arguments to an op or helper",
    "T405": "a local bound to two types",
    "T406": "a name possibly unbound where read",
    "T407": "backward grads/returns do not match",
    "T408": "int ** int with a non-literal exponent",
    "T409": "truth value of a tensor",
    "T410": "a path without return",
    "T411": "an operator whose op is not defined",
    "T412": "an output that is not a fresh tensor",
    "T413": "unsupported parameter or return type",
}

