"""Parse: a formula module's source -> ``model.Module`` (structure only, no checking).

Stage 1 of the front end. Input: the path of a ``.py`` file and the repository root.
Output: a ``Module`` with its formulas (parameters with normalised type spellings, options,
forward statements, backward, outputs or composite result), helpers and numeric constants.

Invariants: parsing is lenient: anything it does not understand is left for ``fence`` to
report (an unsupported annotation keeps its spelling, a malformed formula has
``backward=None`` and ``result=None``); the only error raised here is a syntax error (T100),
as ``TranslatorError``. Every ``Loc`` is relative to ``root``. The tree kept in the model is
the one positions were computed on (node identity is what ``loc_of`` relies on).
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..diagnostics import TranslatorError, make_diagnostic
from ..messages import format_message
from ..model import Backward, Constant, Formula, Helper, Loc, Module, Options, Param
from .literals import NO_VALUE, is_constant, literal_value
from .syntax import dotted_name, is_docstring, walk

# Spellings of annotation names that mean the same type.
_ALIASES = {"Tuple": "tuple", "List": "list"}


def parse_module(path: str, root: str) -> Module:
    """Read and parse ``path``; locations are relative to ``root``."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    return parse_source(source, relative_path(path, root))


def relative_path(path: str, root: str) -> str:
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    if rel.startswith(".."):
        rel = os.path.abspath(path)
    return rel.replace(os.sep, "/")


# Note [Nesting before libcst]: libcst's native parser overflows the C stack (a segfault, not an
# exception) on a few thousand nested parentheses, and its visitors, like every pass of the
# translator, recurse once or more per level of an expression, so a 400-term sum exhausts
# Python's stack. CPython's own parser is the gate: it refuses deep brackets with a
# SyntaxError (T100) and deep expressions with a RecursionError or MemoryError; what it
# accepts is measured without recursion, and anything nested deeper than MAX_DEPTH is T114 at
# the line where the depth is exceeded. Only then is libcst given the source.
MAX_DEPTH = 100


def _check_nesting(source: str, rel_path: str) -> None:
    """Raise ``TranslatorError`` (T100 or T114) unless every expression of ``source`` is
    nested at most ``MAX_DEPTH`` deep (Note [Nesting before libcst])."""
    try:
        tree = ast.parse(source, rel_path)
    except SyntaxError as se:
        loc = Loc(rel_path, se.lineno or 1, se.offset or 1)
        raise TranslatorError([make_diagnostic(
            "T100", loc, f"invalid Python syntax: {se.msg}", "fix the syntax error", source)
        ]) from None
    except (RecursionError, MemoryError):
        raise TranslatorError([_too_deep(source, rel_path, _busiest_line(source))]) from None
    stack: list[tuple[ast.AST, int, int]] = [(tree, 0, 1)]
    while stack:
        node, depth, line = stack.pop()
        line = getattr(node, "lineno", line)
        if depth > MAX_DEPTH:
            raise TranslatorError([_too_deep(source, rel_path, line)])
        stack.extend((child, depth + 1, line) for child in ast.iter_child_nodes(node))


def _busiest_line(source: str) -> int:
    """The first line of the logical line with the most tokens (where a parser ran out of
    stack); 1 when the source cannot even be tokenized."""
    best, best_count, start, count = 1, -1, 1, 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if count == 0:
                start = tok.start[0]
            count += 1
            if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if count > best_count:
                    best, best_count = start, count
                count = 0
    except (tokenize.TokenError, SyntaxError):
        pass
    return best


def _too_deep(source: str, rel_path: str, line: int):
    lines = source.splitlines()
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    col = len(text) - len(text.lstrip()) + 1
    code, message, hint = format_message("too_deep", limit=MAX_DEPTH)
    return make_diagnostic(code, Loc(rel_path, line, col), message, hint, source)


def _syntax_diagnostic(source: str, rel_path: str, e: cst.ParserSyntaxError):
    """T100, located and worded by CPython's own parser when it agrees that this is an error
    (libcst reports the token after the problem), else by libcst."""
    try:
        compile(source, rel_path, "exec", dont_inherit=True)
    except SyntaxError as se:
        line, col, msg = se.lineno or 1, se.offset or 1, se.msg
    else:
        msg = str(e.message).strip().splitlines()[0] if e.message else "invalid syntax"
        m = re.match(r"^parser error: error at (\d+):(\d+): ", msg)
        line, col = (int(m.group(1)), int(m.group(2)) + 1) if m else (e.raw_line, e.raw_column + 1)
        msg = msg[m.end() :] if m else msg
    return make_diagnostic(
        "T100",
        Loc(rel_path, line, col),
        f"invalid Python syntax: {msg}",
        "fix the syntax error",
        source,
    )


def parse_source(source: str, rel_path: str) -> Module:
    """Parse module text already read (``rel_path`` is used for locations only)."""
    _check_nesting(source, rel_path)
    try:
        tree = cst.parse_module(source)
    except cst.ParserSyntaxError as e:
        raise TranslatorError([_syntax_diagnostic(source, rel_path, e)]) from None
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    # a dict of our own: parse adds the nodes it writes (Note [Returned kernel calls])
    positions = dict(wrapper.resolve(PositionProvider))
    name = os.path.splitext(os.path.basename(rel_path))[0]
    partial = Module(rel_path, name, source, tree, positions, (), (), ())
    constants = _collect_constants(partial)
    env = {c.name: c.value for c in constants}
    formulas: list[Formula] = []
    helpers: list[Helper] = []
    for stmt in tree.body:
        if not isinstance(stmt, cst.FunctionDef):
            continue
        kind = decorator_kind(stmt)
        if kind == "formula":
            formulas.append(_parse_formula(partial, stmt, env))
        elif kind == "helper":
            helpers.append(
                Helper(
                    stmt.name.value,
                    partial.loc_of(stmt),
                    _parse_params(partial, stmt, env),
                    annotation_spelling(stmt.returns.annotation if stmt.returns else None),
                    stmt,
                    stmt.get_docstring(),
                )
            )
    return Module(
        rel_path, name, source, tree, positions, tuple(formulas), tuple(helpers), tuple(constants)
    )


# ---------------------------------------------------------------------------------------------
# Decorators and options


def decorator_name(dec: cst.Decorator) -> str:
    """``formula`` for ``@formula`` and ``@formula(...)``; dotted for attributes; "" otherwise."""
    expr = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
    return dotted_name(expr) or ""


def decorator_kind(fn: cst.FunctionDef) -> str | None:
    """ "formula" or "helper" when ``fn`` carries that decorator (``@samples`` is ignored)."""
    names = {decorator_name(d) for d in fn.decorators}
    if "formula" in names:
        return "formula"
    if "helper" in names:
        return "helper"
    return None


def formula_decorator(fn: cst.FunctionDef) -> cst.Decorator | None:
    for d in fn.decorators:
        if decorator_name(d) == "formula":
            return d
    return None


def _parse_options(dec: cst.Decorator | None, env: dict[str, Any]) -> Options:
    if dec is None or not isinstance(dec.decorator, cst.Call):
        return Options()
    values: dict[str, Any] = {}
    for arg in dec.decorator.args:
        if arg.keyword is None:
            continue
        v = literal_value(arg.value, env)
        if not is_constant(v):
            continue
        values[arg.keyword.value] = v
    diff = values.get("differentiable_outputs")
    if isinstance(diff, str):
        diff = (diff,)
    hidden = values.get("hidden_outputs", ())
    if isinstance(hidden, str):
        hidden = (hidden,)
    return Options(
        differentiable_outputs=tuple(diff) if isinstance(diff, (tuple, list)) else None,
        hidden_outputs=tuple(hidden) if isinstance(hidden, (tuple, list)) else (),
        once_differentiable=bool(values.get("once_differentiable", False)),
        materialize_grads=bool(values.get("materialize_grads", False)),
        inplace_saves_copy=bool(values.get("inplace_saves_copy", False)),
    )


# ---------------------------------------------------------------------------------------------
# Formulas


def _parse_formula(mod: Module, fn: cst.FunctionDef, env: dict[str, Any]) -> Formula:
    body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
    doc = None
    if body and is_docstring(body[0]):
        doc = fn.get_docstring()
        body = body[1:]
    backward: Backward | None = None
    outputs: tuple[str, ...] = ()
    result: cst.BaseExpression | None = None
    named: list[cst.SimpleStatementLine] = []
    last = _return_value(body[-1]) if body else None
    if last is not None:
        body = body[:-1]
        last, named = _name_returned_calls(mod, fn, last)
        outs = returned_outputs(last)
        if outs is not None:
            outputs = outs
        elif last is not NO_VALUE:
            result = last
    forward = []
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "backward":
            if backward is None:
                backward = Backward(_plain_param_names(stmt), _block(stmt), mod.loc_of(stmt))
            continue
        forward.append(stmt)
    if backward is None:
        outputs = ()
    else:
        forward.extend(named)
    returns = annotation_spelling(fn.returns.annotation if fn.returns else None)
    return Formula(
        name=fn.name.value,
        loc=mod.loc_of(fn),
        params=_parse_params(mod, fn, env),
        returns=returns,
        options=_parse_options(formula_decorator(fn), env),
        node=fn,
        forward=tuple(forward),
        backward=backward,
        outputs=outputs,
        result=result,
        doc=doc,
    )


# Note [Returned kernel calls]: ``return kernel.exp(x), backward`` is written as people do; it
# means ``result = kernel.exp(x)`` then ``return result, backward``. Parse names each returned
# ``kernel.NAME(...)`` call with a name the function does not use (``result``, ``result1``, ...)
# and appends that assignment to the forward (after ``def backward``, which cannot read it: the
# name is not in the source, so a read is T105), its nodes located at the call. Every later
# stage (fence, captures, lowering, the reference engine's plan) sees an ordinary named output.
def _name_returned_calls(
    mod: Module, fn: cst.FunctionDef, value: Any
) -> tuple[Any, list[cst.SimpleStatementLine]]:
    """``value`` with each returned kernel call replaced by a fresh name, and the assignments
    binding those names; ``value`` unchanged (and no assignment) when it has no such call."""
    if not (isinstance(value, cst.Tuple) and len(value.elements) == 2):
        return value, []
    first = value.elements[0].value
    elems = first.elements if isinstance(first, cst.Tuple) else None
    calls = [e.value for e in elems] if elems is not None else [first]
    if not any(_is_kernel_call(c) for c in calls):
        return value, []
    used = {n.value for n in walk(fn) if isinstance(n, cst.Name)}
    named, stmts = [], []
    for i, c in enumerate(calls):
        if not _is_kernel_call(c):
            named.append(c)
            continue
        name = "result" if len(calls) == 1 else f"result{i}"
        while name in used:
            name += "_"
        used.add(name)
        target = cst.Name(name)
        assign = cst.Assign([cst.AssignTarget(target)], c)
        stmt = cst.SimpleStatementLine([assign])
        for node in (target, assign, assign.targets[0], stmt):
            mod.positions[node] = mod.positions[c]  # type: ignore[index]
        named.append(target)
        stmts.append(stmt)
    if elems is None:
        new_first: Any = named[0]
    else:
        new_first = first.with_changes(
            elements=[e.with_changes(value=n) for e, n in zip(elems, named)])
        mod.positions[new_first] = mod.positions[first]  # type: ignore[index]
    new = value.with_changes(elements=[value.elements[0].with_changes(value=new_first),
                                       value.elements[1]])
    mod.positions[new] = mod.positions[value]  # type: ignore[index]
    return new, stmts


def _is_kernel_call(e: Any) -> bool:
    name = dotted_name(e.func) if isinstance(e, cst.Call) else None
    return name is not None and name.startswith("kernel.") and name.count(".") == 1


def returned_outputs(value: Any) -> tuple[str, ...] | None:
    """Names in ``return out, backward`` / ``return (a, b), backward``; None if not that shape."""
    if not isinstance(value, cst.Tuple) or len(value.elements) != 2:
        return None
    first, second = (e.value for e in value.elements)
    if not (isinstance(second, cst.Name) and second.value == "backward"):
        return None
    if any(isinstance(e, cst.StarredElement) for e in value.elements):
        return None
    if isinstance(first, cst.Name):
        return (first.value,)
    if isinstance(first, cst.Tuple) and first.elements:
        names = [e.value for e in first.elements if isinstance(e, cst.Element)]
        if len(names) == len(first.elements) and all(isinstance(n, cst.Name) for n in names):
            return tuple(n.value for n in names if isinstance(n, cst.Name))
    return None


def _return_value(stmt: cst.BaseStatement) -> Any:
    """The expression of a final ``return`` statement; NO_VALUE for a bare return; else None."""
    if (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Return)
    ):
        value = stmt.body[0].value
        return NO_VALUE if value is None else value
    return None


def _block(fn: cst.FunctionDef) -> cst.IndentedBlock:
    if isinstance(fn.body, cst.IndentedBlock):
        return fn.body
    # ``def backward(grad): return ...`` on one line: present it as a block all the same.
    smalls = [s for s in fn.body.body if isinstance(s, cst.BaseSmallStatement)]
    return cst.IndentedBlock(body=[cst.SimpleStatementLine(body=smalls)])


def _plain_param_names(fn: cst.FunctionDef) -> tuple[str, ...]:
    p = fn.params
    return tuple(x.name.value for x in (*p.posonly_params, *p.params))


def _parse_params(mod: Module, fn: cst.FunctionDef, env: dict[str, Any]) -> tuple[Param, ...]:
    out = []
    p = fn.params
    for param in (*p.posonly_params, *p.params, *p.kwonly_params):
        ann = annotation_spelling(param.annotation.annotation if param.annotation else None)
        default_value = None
        if param.default is not None:
            v = literal_value(param.default, env)
            default_value = v if is_constant(v) else None
        out.append(
            Param(param.name.value, ann, param.default, default_value, mod.loc_of(param.name))
        )
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Annotations


def annotation_spelling(expr: cst.BaseExpression | None) -> str:
    """Normalised spelling: "Tensor", "Optional[Dims]", "(Tensor, Tensor)"; "" when absent.

    ``X | None`` and ``Union[X, None]`` become ``Optional[X]``; a string annotation is parsed;
    a tuple of types (``Tuple[Tensor, Tensor]``, ``tuple[...]`` or ``(Tensor, Tensor)``) is
    spelled like signatures.py spells kernel results: ``(Tensor, Tensor)``.
    """
    if expr is None:
        return ""
    if isinstance(expr, cst.SimpleString):
        try:
            return annotation_spelling(cst.parse_expression(str(expr.evaluated_value)))
        except (cst.ParserSyntaxError, TypeError):
            return expr.value
    if isinstance(expr, cst.Name):
        return _ALIASES.get(expr.value, expr.value) if expr.value != "None" else "None"
    if isinstance(expr, cst.Attribute):
        return dotted_name(expr) or _code(expr)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
        left, right = annotation_spelling(expr.left), annotation_spelling(expr.right)
        if right == "None":
            return f"Optional[{left}]"
        if left == "None":
            return f"Optional[{right}]"
        return f"Union[{left}, {right}]"
    if isinstance(expr, cst.Tuple):
        return "(" + ", ".join(annotation_spelling(e.value) for e in expr.elements) + ")"
    if isinstance(expr, cst.Subscript):
        head = annotation_spelling(expr.value)
        args = []
        for el in expr.slice:
            if isinstance(el.slice, cst.Index):
                v = el.slice.value
                args.append("..." if isinstance(v, cst.Ellipsis) else annotation_spelling(v))
            else:
                args.append(_code(el.slice))
        if head == "Union" and len(args) == 2 and "None" in args:
            return f"Optional[{args[0] if args[1] == 'None' else args[1]}]"
        if head == "tuple" and "..." not in args:
            return "(" + ", ".join(args) + ")"
        return f"{head}[{', '.join(args)}]"
    return _code(expr)


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


# ---------------------------------------------------------------------------------------------
# Module constants


def _collect_constants(mod: Module) -> list[Constant]:
    env: dict[str, Any] = {}
    out = []
    for stmt in mod.tree.body:
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
            continue
        small = stmt.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target, value = small.targets[0].target, small.value
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            target, value = small.target, small.value
        else:
            continue
        if not isinstance(target, cst.Name):
            continue
        v = literal_value(value, env)
        if isinstance(v, (bool, int, float)):
            env[target.value] = v
            out.append(Constant(target.value, v, mod.loc_of(target)))
    return out
