"""The import graph of the ``transgrad`` package (python/transgrad, without the translator) has
no cycle, and ``transgrad.lang`` imports no engine (Note [Who runs a formula] in lang.py).

The graph is read statically with ``ast``: an import inside a function is an edge too, since it
is a dependency all the same (only hidden). A submodule importing its own parent package is not
an edge (the parent is always initialised first).
"""

import ast
import pathlib

import transgrad

ROOT = pathlib.Path(transgrad.__file__).parent



def module_files():
    mods = {}
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        if "translator" in parts or "formulas" in parts:
            continue
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


def imported_names(module, path):
    """Every module name an import statement of ``path`` refers to (absolute)."""
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module if is_pkg else module.rpartition(".")[0]
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module
            yield target
            yield from (f"{target}.{a.name}" for a in node.names)


def import_graph():
    mods = module_files()
    edges = {m: set() for m in mods}
    for m, path in mods.items():
        for name in imported_names(m, path):
            while name and name not in mods:
                name = name.rpartition(".")[0]
            if name and name != m and not m.startswith(name + "."):
                edges[m].add(name)
    return edges


def cycles(edges):
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return sorted(found)


def test_cycle_finder_finds_a_cycle():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(edges) == [["a", "b", "c"]]


def test_the_graph_is_read():
    edges = import_graph()
    assert "transgrad.reference.executor" in edges["transgrad.reference"]
    assert "transgrad.lang" in edges["transgrad.reference.executor"]


def test_transgrad_has_no_import_cycle():
    found = cycles(import_graph())
    assert found == [], "import cycles:\n" + "\n".join(", ".join(c) for c in found)


def test_lang_imports_no_engine():
    edges = import_graph()
    reached, todo = set(), ["transgrad.lang"]
    while todo:
        m = todo.pop()
        for n in edges[m]:
            if n not in reached:
                reached.add(n)
                todo.append(n)
    assert not {m for m in reached if m.startswith(("transgrad.reference", "transgrad._api",
                                                     "transgrad._compiled"))}
