"""Scopes: which names a nested function reads from the function around it (for ``captures``).

Input: a formula's ``FunctionDef`` and its ``def backward``. Output: for every name the
backward (or a comprehension, lambda or function nested in it) reads from the formula's own
scope, the ``Name`` nodes of those reads. Names of the module, builtins and the backward's own
locals are not in it.

Note [Scopes without ScopeProvider]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
libcst's ScopeProvider answered this before and was 95% of the capture rule's time (its
visitor rebuilds every node and asks for qualified names at every call: about 1 s of the 3 s
the front end spends on the shipped formulas). This walk over the same trees (``syntax.walk``'s
fields) keeps the rules the rule was written against, ScopeProvider's reading of Python's:
* a function, lambda or comprehension is a scope; a class body is one its nested functions do
  not see; a name a scope binds anywhere (assignment, loop or comprehension target, ``:=``,
  parameter, ``def``/``class``, import) is that scope's, ``global``/``nonlocal`` send it out;
* a comprehension's first iterable is read in the enclosing scope, its targets are bound
  before its conditions and element are read; a ``for`` target is bound before its iterable;
* a read that comes before every binding of the name in its own scope (``x = x + 1`` as the
  first binding of ``x``) refers to the enclosing scope's ``x``, as ScopeProvider decides.
Order is counted the way ScopeProvider counts it: a scope's counter moves on after each
statement or construct that binds (an assignment after its value), and a binding is earlier
than a read when its count is smaller. tests/translator/test_scopes.py checks this walk against
ScopeProvider on every formula module of the repository and on hostile cases.
"""

from __future__ import annotations

import libcst as cst

from .syntax import child_nodes, dotted_name

# What moves a scope's counter on once done (ScopeProvider's list, for the nodes that parse).
_BINDING = (cst.AnnAssign, cst.AsName, cst.Assign, cst.AugAssign, cst.ClassDef, cst.CompFor,
            cst.FunctionDef, cst.Global, cst.Import, cst.ImportFrom, cst.NamedExpr, cst.Nonlocal,
            cst.Parameters, cst.WithItem)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_TARGETED = (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.CompFor)
# Nodes whose fields are not in source order (the walk reads them as ScopeProvider does).
_SOURCE_ORDER = {cst.IfExp: ("body", "test", "orelse"), cst.ExceptHandler: ("type", "name", "body")}


class _Scope:
    def __init__(self, parent: _Scope | None, is_class: bool = False):
        self.parent, self.is_class = parent, is_class
        self.count = 0
        self.bound: dict[str, list[int]] = {}  # name -> counts at which it is bound here
        self.redirect: dict[str, _Scope] = {}  # ``global``/``nonlocal`` names -> where to
        self.reads: list[tuple[cst.Name, int]] = []

    def bind(self, name: str) -> None:
        target: _Scope | None = self
        while target is not None and name in target.redirect:
            target = _visible(target.redirect[name])
        if target is not None:
            target.bound.setdefault(name, []).append(target.count)

    def resolve(self, name: str) -> _Scope | None:
        """The scope whose bindings of ``name`` a read here refers to (None: none binds it)."""
        s: _Scope | None = self
        while s is not None:
            if name in s.redirect:
                s = _visible(s.redirect[name])
            elif s.bound.get(name):
                return s
            else:
                s = _visible(s.parent)
        return None


def _visible(s: _Scope | None) -> _Scope | None:
    while s is not None and s.is_class:  # a class body is not seen from the functions in it
        s = s.parent
    return s


def outer_reads(fn: cst.FunctionDef, inner: cst.FunctionDef) -> dict[str, list[cst.Name]]:
    """Name -> the reads inside ``inner`` (nested in ``fn``) that refer to ``fn``'s scope, each
    list in source order of the walk (callers sort by position)."""
    walker = _Walker(inner)
    outer = walker.function(fn, _Scope(None))
    out: dict[str, list[cst.Name]] = {}
    for scope in walker.inside:
        for node, count in scope.reads:
            name = node.value
            found = scope.resolve(name)
            if found is scope and not any(c < count for c in scope.bound[name]):
                found = scope.parent.resolve(name) if scope.parent else None  # read before bound
            if found is outer:
                out.setdefault(name, []).append(node)
    return out


class _Walker:
    def __init__(self, inner: cst.FunctionDef):
        self.inner = inner
        self.inside: list[_Scope] = []  # the scopes of ``inner`` and of what it nests
        self.depth = 0  # > 0 while walking ``inner``

    def new_scope(self, node: cst.CSTNode, parent: _Scope, is_class: bool = False) -> _Scope:
        s = _Scope(parent, is_class)
        if self.depth or node is self.inner:
            self.inside.append(s)
        return s

    def visit(self, node: cst.CSTNode, s: _Scope) -> None:
        if isinstance(node, cst.Name):
            s.reads.append((node, s.count))
        elif isinstance(node, (cst.Attribute, cst.Arg)):
            self.visit(node.value, s)  # not the attribute's or keyword's name
        elif isinstance(node, (cst.FunctionDef, cst.Lambda)):
            self.function(node, s)
        elif isinstance(node, cst.ClassDef):
            self.class_(node, s)
        elif isinstance(node, _COMPREHENSIONS):
            self.comprehension(node, s)
        elif isinstance(node, cst.For):
            self.target(node.target, s)
            s.count += 1
            for child in (node.iter, node.body, node.orelse):
                if child is not None:
                    self.visit(child, s)
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            to = self.module_of(s) if isinstance(node, cst.Global) else s.parent
            for item in node.names:
                if to is not None:
                    s.redirect[item.name.value] = to
        elif isinstance(node, (cst.Import, cst.ImportFrom)):
            if not isinstance(node.names, cst.ImportStar):
                for alias in node.names:
                    for name in _imported(alias):
                        s.bind(name)
        elif isinstance(node, cst.SimpleString):
            pass
        else:
            target = getattr(node, "name", None) if isinstance(node, cst.AsName) else getattr(
                node, "target", None) if isinstance(node, _TARGETED) else None
            order = _SOURCE_ORDER.get(type(node))
            children = child_nodes(node) if order is None else (
                c for c in (getattr(node, f) for f in order) if c is not None)
            for part in children:
                if target is not None and part is target:
                    self.target(part, s)
                else:
                    self.visit(part, s)
        if isinstance(node, _BINDING) and not isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            s.count += 1

    def target(self, t: cst.CSTNode, s: _Scope) -> None:
        if isinstance(t, cst.Name):
            s.bind(t.value)
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                self.target(el.value, s)
        elif isinstance(t, cst.StarredElement):
            self.target(t.value, s)
        else:  # ``a[i] = ...``, ``a.b = ...``: reads of ``a`` and ``i``
            self.visit(t, s)

    def function(self, node: cst.FunctionDef | cst.Lambda, s: _Scope) -> _Scope:
        if isinstance(node, cst.FunctionDef):
            s.bind(node.name.value)
        entering = node is self.inner
        self.depth += entering
        inner = self.new_scope(node, s)
        for p in _params(node.params):
            inner.bind(p.name.value)
            for part in (p.default, p.annotation):  # evaluated where the function is defined
                if part is not None:
                    self.visit(part, s)
        inner.count += 1
        self.visit(node.body, inner)
        self.depth -= entering
        if isinstance(node, cst.FunctionDef):
            for dec in node.decorators:
                self.visit(dec, s)
            if node.returns is not None:
                self.visit(node.returns, s)
            s.count += 1
        return inner

    def class_(self, node: cst.ClassDef, s: _Scope) -> None:
        s.bind(node.name.value)
        for part in (*node.decorators, *node.bases, *node.keywords):
            self.visit(part, s)
        body = self.new_scope(node, s, is_class=True)
        for stmt in node.body.body:
            self.visit(stmt, body)
        s.count += 1

    def comprehension(self, node, s: _Scope) -> None:
        first = node.for_in
        self.visit(first.iter, s)  # read where the comprehension stands
        c = self.new_scope(node, s)
        self.target(first.target, c)
        c.count += 1
        for cond in first.ifs:
            self.visit(cond, c)
        if first.inner_for_in is not None:
            self.visit(first.inner_for_in, c)
        for part in (node.key, node.value) if isinstance(node, cst.DictComp) else (node.elt,):
            self.visit(part, c)

    @staticmethod
    def module_of(s: _Scope) -> _Scope:
        while s.parent is not None:
            s = s.parent
        return s


def _params(params: cst.Parameters) -> list[cst.Param]:
    star = [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return [*params.posonly_params, *params.params, *params.kwonly_params, *star]


def _imported(alias: cst.ImportAlias) -> list[str]:
    """The names an import binds: ``as`` name, else ``a.b.c``, ``a.b`` and ``a``."""
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return [alias.asname.name.value]
    full = dotted_name(alias.name) or ""
    parts = full.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)]
