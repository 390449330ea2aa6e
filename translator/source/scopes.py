"""Scopes: the capture rule's facts of the source (for ``captures``).

Input: a formula's ``FunctionDef`` and its ``def backward``. Output (``capture_facts``): for
every name the backward (or a comprehension, lambda or function nested in it) reads from the
formula's own scope, those reads (``outer_reads``; names of the module, builtins and the
backward's own locals are not in it), each marked when it reads only metadata (``x.shape``,
``x is None``); and how, where and how many times per execution path the forward binds each
name (``if c: s = a`` / ``else: s = b`` binds ``s`` once; a binding inside a loop body binds
it many times). Plain data: the rule itself (captures.py) reads no libcst.

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

import dataclasses
from collections.abc import Sequence

import libcst as cst

from ..model import Formula, Loc, Module
from ..subset import METADATA
from .syntax import child_nodes, dotted_name, find, if_branches, target_names

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

# ---------------------------------------------------------------------------------------------
# The capture rule's facts of the source


@dataclasses.dataclass(frozen=True)
class Read:
    """A read, in a backward, of a name of its formula's scope."""

    loc: Loc
    metadata: str | None  # "shape"/"ndim"/"dtype"/"numel"/"defined" when it reads only that


@dataclasses.dataclass(frozen=True)
class Binding:
    """A binding of a name by the forward."""

    loc: Loc
    how: str  # "assign", "unpack", "aug", "loop", "walrus"
    index: int  # index of the enclosing top-level statement of the formula body


@dataclasses.dataclass(frozen=True)
class CaptureFacts:
    """What the source says of one formula's captures; the rule (captures.py) judges them with
    what the IR says of the values."""

    reads: dict[str, list[Read]]  # the backward's reads of each outer name, by position
    bindings: dict[str, list[Binding]]  # the forward's bindings of each name, in order
    counts: dict[str, int]  # the most times one execution path binds each name (loops: many)
    backward_index: int  # of ``def backward`` among the formula's top-level statements


def capture_facts(mod: Module, f: Formula) -> CaptureFacts:
    """The reads and bindings the capture rule judges, for formula ``f`` of ``mod`` (one with
    a backward)."""
    body = list(f.node.body.body)
    index = next(i for i, s in enumerate(body)
                 if isinstance(s, cst.FunctionDef) and s.name.value == "backward")
    backward: cst.FunctionDef = body[index]  # type: ignore[assignment]
    meta = _metadata_reads(backward.body)
    reads = {}
    for name, nodes in outer_reads(f.node, backward).items():
        found = [Read(mod.loc_of(n), meta.get(id(n))) for n in nodes]
        reads[name] = sorted(found, key=lambda r: (r.loc.line, r.loc.col))
    bindings: dict[str, list[Binding]] = {}
    for i, stmt in enumerate(body):
        if i != index:
            _bindings(mod, stmt, i, bindings)
    return CaptureFacts(reads, bindings, _path_counts(body, index), index)


def _bindings(mod: Module, stmt: cst.CSTNode, index: int, out: dict[str, list[Binding]]) -> None:
    def target(t: cst.BaseExpression, how: str) -> None:
        if isinstance(t, cst.Name):
            out.setdefault(t.value, []).append(Binding(mod.loc_of(t), how, index))
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                target(el.value, "unpack" if how == "assign" else how)

    def small(s: cst.CSTNode) -> None:
        if isinstance(s, cst.Assign):
            for t in s.targets:
                target(t.target, "assign")
        elif isinstance(s, cst.AnnAssign) and s.value is not None:
            target(s.target, "assign")
        elif isinstance(s, cst.AugAssign):
            target(s.target, "aug")

    if isinstance(stmt, cst.BaseSmallStatement):
        small(stmt)
    elif isinstance(stmt, cst.SimpleStatementLine):
        for s in stmt.body:
            small(s)
    elif isinstance(stmt, (cst.If, cst.For, cst.While)):
        blocks = if_branches(stmt)[1] if isinstance(stmt, cst.If) else [stmt.body.body]
        if isinstance(stmt, cst.For):
            target(stmt.target, "loop")
        for block in blocks:
            for inner in block:
                _bindings(mod, inner, index, out)
    for node in find(stmt, cst.NamedExpr, skip=(cst.FunctionDef, cst.Lambda)):
        if isinstance(node.target, cst.Name):
            out.setdefault(node.target.value, []).append(
                Binding(mod.loc_of(node.target), "walrus", index))


def _path_counts(body: Sequence[cst.CSTNode], skip: int) -> dict[str, int]:
    """For each name, the most times one execution path of ``body`` binds it (loops: many)."""

    def block(stmts: Sequence[cst.CSTNode]) -> dict[str, int]:
        total: dict[str, int] = {}
        for s in stmts:
            for n, c in stmt(s).items():
                total[n] = total.get(n, 0) + c
        return total

    def stmt(s: cst.CSTNode) -> dict[str, int]:
        if isinstance(s, cst.If):
            out: dict[str, int] = {}
            for b in if_branches(s)[1]:
                for n, c in block(b).items():
                    out[n] = max(out.get(n, 0), c)
            return out
        if isinstance(s, (cst.For, cst.While)):
            inner = block(s.body.body)
            if isinstance(s, cst.For):
                for n in target_names(s.target):
                    inner[n] = inner.get(n, 0) + 1
            return {n: 2 * c for n, c in inner.items()}
        out = {}
        if isinstance(s, (cst.SimpleStatementLine, cst.BaseSmallStatement)):
            for small in s.body if isinstance(s, cst.SimpleStatementLine) else [s]:
                targets = []
                if isinstance(small, cst.Assign):
                    targets = [t.target for t in small.targets]
                elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                    targets = [small.target]
                for t in targets:
                    for n in target_names(t):
                        out[n] = out.get(n, 0) + 1
        return out

    return block([s for i, s in enumerate(body) if i != skip])


def _metadata_reads(node: cst.CSTNode) -> dict[int, str]:
    """id(Name) -> attribute, for every ``name.shape`` / ``.ndim`` / ``.dtype`` / ``.numel``,
    and ``defined`` for ``name is None`` / ``name is not None`` (whether a tensor was given is
    metadata too: the compiled node saves a flag, the reference engine the tensor's metadata)."""
    out: dict[int, str] = {}
    for attr in find(node, cst.Attribute):
        if isinstance(attr.value, cst.Name) and attr.attr.value in METADATA:
            out[id(attr.value)] = attr.attr.value
    for cmp in find(node, cst.Comparison):
        if (isinstance(cmp.left, cst.Name) and len(cmp.comparisons) == 1
                and isinstance(cmp.comparisons[0].operator, (cst.Is, cst.IsNot))
                and isinstance(cmp.comparisons[0].comparator, cst.Name)
                and cmp.comparisons[0].comparator.value == "None"):
            out[id(cmp.left)] = "defined"
    return out
