"""The translator's modules import one another without a cycle (issue #10): relative imports
form a DAG. An import inside a function is an edge too (a dependency all the same, only
hidden); imports under ``if TYPE_CHECKING:`` are for types only and are not."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "translator"


def _imports(tree: ast.AST):
    """Every ``from . import`` of ``tree``, at any depth, but those under ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for child in node.orelse for n in _imports_of(child))
            continue
        yield from _imports_of(node)


def _imports_of(node: ast.AST):
    if isinstance(node, ast.ImportFrom):
        yield node
    else:
        yield from _imports(node)


def import_graph() -> dict[str, set[str]]:
    modules = {p.stem: p for p in PACKAGE.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        deps: set[str] = set()
        for node in _imports(ast.parse(path.read_text())):
            if node.level == 1:
                deps |= {node.module.split(".")[0]} if node.module else {
                    a.name for a in node.names}
        graph[name] = deps & set(modules)
    return graph


def find_cycle(graph):
    state: dict[str, int] = {}

    def visit(n, path):
        state[n] = 1
        for d in sorted(graph[n]):
            if state.get(d) == 1:
                return path[path.index(d):] + [d]
            if d not in state and (found := visit(d, path + [d])):
                return found
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n, [n])):
            return found
    return None


def test_translator_imports_form_no_cycle():
    assert find_cycle(import_graph()) is None


def test_the_cycle_finder_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_an_import_inside_a_function_is_an_edge():
    tree = ast.parse("def f():\n    from .parse import x\n"
                     "if TYPE_CHECKING:\n    from .ir import y\n")
    assert [n.module for n in _imports(tree)] == ["parse"]
