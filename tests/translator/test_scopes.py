"""scopes.outer_reads against libcst's ScopeProvider (Note [Scopes without ScopeProvider]): for
every backward of every formula module in the repository and for hostile scoping, the same
reads of the formula's scope, at the same places."""

import glob
import os
import textwrap

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider, ScopeProvider

from translator.source.scopes import outer_reads

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULES = sorted(
    p
    for pattern in (
        "formulas/*.py",
        "formulas/imported/*.py",
        "examples/formula_package/src/formula_example/*.py",
        "tests/translator/backend/fixtures/*.py",
        "tests/translator/corpus/*/*.py",
        "tests/translator/data/*.py",
    )
    for p in glob.glob(os.path.join(ROOT, pattern))
)


def _pairs(tree: cst.Module):
    """(formula, its first top-level ``def backward``) of every top-level function."""
    for fn in tree.body:
        if isinstance(fn, cst.FunctionDef) and isinstance(fn.body, cst.IndentedBlock):
            bw = next((s for s in fn.body.body if isinstance(s, cst.FunctionDef)
                       and s.name.value == "backward"), None)
            if bw is not None:
                yield fn, bw


def _by_scope_provider(wrapper, scopes, fn, bw):
    """The reads ScopeProvider resolves to ``fn``'s scope, from the scopes inside ``bw``."""
    bw_scope = scopes[bw.body.body[0]]
    out = {}
    for scope in {s for s in scopes.values() if s is not None}:
        s = scope
        while s is not bw_scope and s is not None and s.parent is not s:
            s = s.parent
        if s is not bw_scope:
            continue
        for access in scope.accesses:
            if isinstance(access.node, cst.Name) and any(
                    r.scope is bw_scope.parent for r in access.referents):
                out.setdefault(access.node.value, []).append(access.node)
    return out


def _compare(source: str) -> int:
    tree = cst.parse_module(source)
    wrapper = MetadataWrapper(tree, unsafe_skip_copy=True)
    scopes = wrapper.resolve(ScopeProvider)
    pos = wrapper.resolve(PositionProvider)

    def places(reads):
        return {n: sorted((pos[x].start.line, pos[x].start.column) for x in xs)
                for n, xs in reads.items()}

    count = 0
    for fn, bw in _pairs(tree):
        assert places(outer_reads(fn, bw)) == places(_by_scope_provider(wrapper, scopes, fn, bw)), (
            fn.name.value)
        count += 1
    return count


def test_every_formula_module_of_the_repository():
    checked = 0
    for path in MODULES:
        with open(path, encoding="utf-8") as f:
            source = f.read()
        try:
            checked += _compare(source)
        except cst.ParserSyntaxError:
            continue  # the corpus's syntax error
    assert checked > 300, checked


HOSTILE = {
    "read_before_bound": """
        def f(x, y):
            t = 1
            def backward(g):
                u = t + x
                t = 2
                return g * t * u
            return y, backward
    """,
    "bound_then_read": """
        def f(x):
            s = x
            def backward(g):
                s = g
                x += 1
                return s + x
            return x, backward
    """,
    "comprehensions": """
        def f(x, n, m):
            k = 1
            ys = [1]
            def backward(g):
                a = [k * i for i in range(n) if i != k]
                b = [y for ys in ys for y in ys]
                c = {k: v for k, v in zip(ys, ys)}
                d = [[i + j for j in range(m)] for i in range(n)]
                e = (k for k in k)
                return g, a, b, c, d, e
            return x, backward
    """,
    "loops_and_targets": """
        def f(x, n):
            i = 0
            w = 3
            def backward(g):
                for i in range(i):
                    w = w + i
                (p, [q, *r]) = n
                z: int = w
                return g, i, p, q, r, z
            return x, backward
    """,
    "global_nonlocal": """
        def f(x, a, b, c):
            global c
            c = 1
            def backward(g):
                nonlocal a
                global b
                a = 2
                return g * a * b * c
            return x, backward
    """,
    "nested_functions": """
        def f(x, a, b):
            m = 2
            def backward(g, h=a, *args: b, k=m, **kw):
                def inner(y=m, z=b):
                    return y + z + a + m
                lam = lambda q, r=a: q + r + m + b
                class C:
                    m = 5
                    v = m + a
                    def meth(self):
                        return m
                return g + inner() + lam(1) + C.v
            return x, backward
    """,
    "walrus_and_ifexp": """
        def f(x, t, u):
            w = 1
            def backward(g):
                v = (w := g + t) if u else t
                r = [y := k for k in range(t)]
                return g + v + w + y
            return x, backward
    """,
    "try_with_import_del": """
        def f(x, e, m, d):
            def backward(g):
                try:
                    pass
                except ValueError as e:
                    z = e
                with g as m:
                    z = m
                import d
                del x
                return g + z + d + x
            return x, backward
    """,
    "attributes_calls_strings": """
        def f(x, kernel, shape):
            n: "shape" = 1
            def backward(g):
                s = x.shape
                t = kernel.ones(shape=s, n=n)
                u = f"{x} {n}"
                return g[x.ndim:shape] * t, u
            return x, backward
    """,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_scoping(name):
    assert _compare(textwrap.dedent(HOSTILE[name])) == 1
