"""Syntax: small readers of libcst trees shared by the front- and back-end stages.

Input: libcst nodes. Output: dotted names, the names a target binds, the syntactic children of
a node, a fast pre-order walk and the ``ops.NAME`` a tree names. Invariants: nothing here
changes or copies a tree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import libcst as cst


def dotted_name(expr: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        base = dotted_name(expr.value)
        return f"{base}.{expr.attr.value}" if base else None
    return None



def target_names(t: cst.BaseExpression) -> list[str]:
    """The names an assignment or loop target binds (``a``, ``a, b``, ``(a, (b, c))``)."""
    if isinstance(t, cst.Name):
        return [t.value]
    if isinstance(t, (cst.Tuple, cst.List)):
        return [n for el in t.elements for n in target_names(el.value)]
    return []


# ---------------------------------------------------------------------------------------------
# Fast traversal (Note [Fast walk]): libcst's visitors rebuild every node they pass, which made
# checking all formulas take most of a second; reading the dataclass fields directly does not.

_SKIP_FIELDS = frozenset(
    {
        "lpar",
        "rpar",
        "leading_lines",
        "lines_after_decorators",
        "header",
        "footer",
        "comma",
        "semicolon",
        "newline",
        "trailing_whitespace",
        "equal",
        "colon",
        "dot",
        "star",
    }
)
_FIELDS: dict[type, tuple[str, ...]] = {}


def child_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The syntactic children of ``node`` (no whitespace, commas or parentheses)."""
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(
            f.name
            for f in dataclasses.fields(node)
            if f.name not in _SKIP_FIELDS and not f.name.startswith("whitespace")
        )
    for name in names:
        v = getattr(node, name)
        if isinstance(v, cst.CSTNode):
            yield v
        elif isinstance(v, (list, tuple)):
            for x in v:
                if isinstance(x, cst.CSTNode):
                    yield x


def walk(node: cst.CSTNode, skip: tuple[type[cst.CSTNode], ...] = ()) -> Iterator[cst.CSTNode]:
    """``node`` and its descendants, pre-order; not below a (non-root) node of a ``skip`` type."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if n is not node and skip and isinstance(n, skip):
            continue
        stack.extend(reversed(list(child_nodes(n))))


def find(node: cst.CSTNode, kind, skip: tuple[type[cst.CSTNode], ...] = ()) -> list:
    """The nodes of type ``kind`` in ``walk(node, skip)``, in pre-order."""
    return [n for n in walk(node, skip) if isinstance(n, kind)]


def if_branches(stmt: cst.If) -> tuple[list[cst.BaseExpression], list]:
    """The tests and the blocks (statement lists) of an ``if``/``elif``/``else`` chain."""
    tests, blocks = [stmt.test], [stmt.body.body]
    orelse = stmt.orelse
    while isinstance(orelse, cst.If):
        tests.append(orelse.test)
        blocks.append(orelse.body.body)
        orelse = orelse.orelse
    if isinstance(orelse, cst.Else):
        blocks.append(orelse.body.body)
    return tests, blocks


def is_docstring(stmt: cst.CSTNode) -> bool:
    """A statement line holding only a string literal."""
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )
