"""The translator's modules import one another without a cycle (issue #10): relative imports
form a DAG. An import inside a function is an edge too (a dependency all the same, only
hidden); imports under ``if TYPE_CHECKING:`` are for types only and are not. And only the
``translator.source`` family reads libcst."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "translator"


def _imports(tree: ast.AST):
    """Every import of ``tree``, at any depth, but those under ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for child in node.orelse for n in _imports_of(child))
            continue
        yield from _imports_of(node)


def _imports_of(node: ast.AST):
    if isinstance(node, (ast.ImportFrom, ast.Import)):
        yield node
    else:
        yield from _imports(node)


def _modules() -> dict[str, Path]:
    """Dotted name inside ``translator`` (``source.fence``; a package is its own name) -> file."""
    out = {}
    for p in PACKAGE.rglob("*.py"):
        parts = p.relative_to(PACKAGE).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def _targets(importer: str, path: Path, node: ast.ImportFrom, modules) -> set[str]:
    """The translator modules a relative import in module ``importer`` names."""
    package = importer.split(".") if path.name == "__init__.py" else importer.split(".")[:-1]
    package = [p for p in package if p]
    base = package[:len(package) - (node.level - 1)]
    stem = ".".join([*base, *([node.module] if node.module else [])])
    found = {stem} if stem in modules else set()
    found |= {".".join(filter(None, [stem, a.name])) for a in node.names} & set(modules)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        deps: set[str] = set()
        for node in _imports(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level >= 1:
                deps |= _targets(name, path, node, modules)
        graph[name] = deps - {name}
    return graph


def libcst_readers() -> set[str]:
    """The translator modules importing libcst (outside ``if TYPE_CHECKING:``)."""
    out = set()
    for name, path in _modules().items():
        for node in _imports(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                names = [node.module or ""] if node.level == 0 else []
            if any(n == "libcst" or n.startswith("libcst.") for n in names):
                out.add(name)
    return out


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


def test_the_graph_sees_the_source_family():
    graph = import_graph()
    assert "source.lower" in graph["frontend"] and "source.lower" in graph["backend"]
    assert {"diagnostics", "ir", "source.syntax", "source.lower_env"} <= graph["source.lower"]
    assert "ir" in graph["backend"]  # ``from . import ir, model``


def test_only_the_source_family_reads_libcst():
    readers = libcst_readers()
    assert readers and all(name.startswith("source.") for name in readers), readers
    assert {"source.parse", "source.lower", "source.fence", "source.scopes"} <= readers


def test_the_cycle_finder_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_an_import_inside_a_function_is_an_edge():
    tree = ast.parse("def f():\n    from .parse import x\n"
                     "if TYPE_CHECKING:\n    from .ir import y\n")
    assert [n.module for n in _imports(tree)] == ["parse"]


def test_a_type_checking_import_of_libcst_is_no_read():
    tree = ast.parse("if TYPE_CHECKING:\n    import libcst as cst\nimport os\n")
    assert [a.name for n in _imports(tree) for a in n.names] == ["os"]
