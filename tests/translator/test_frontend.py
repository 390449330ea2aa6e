"""frontend: load_module, check_callable (import-time checking), formula_model, find_root."""

import importlib.util
import os
import sys

import pytest

from translator import frontend
from translator.diagnostics import TranslatorError
from translator.model import CaptureKind

GOOD = """
@formula
def exp(x: Tensor) -> Tensor:
    result = kernel.exp(x)

    def backward(grad):
        return grad * result

    return result, backward
"""

BAD = """
@formula
def tanh(x: Tensor) -> Tensor:
    t = kernel.tanh(x)
    result = kernel.mul(t, kernel.scalar_like(t, 1.0))

    def backward(grad):
        return grad * (1.0 - t * t)

    return result, backward


@formula
def exp10(x: Tensor) -> Tensor:
    result = kernel.exp10(x)

    def backward(grad):
        return grad * result

    return result, backward
"""


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TRANSGRAD_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_find_root(repo, tmp_path):
    (repo / "formulas" / "deep").mkdir()
    assert frontend.find_root(str(repo / "formulas" / "deep" / "m.py")) == str(repo)
    lone = tmp_path / "lone"
    lone.mkdir()
    # no marker up to / (tmp dirs have none): the file's own directory
    root = frontend.find_root(str(lone / "m.py"))
    assert (
        root == str(lone)
        or os.path.exists(os.path.join(root, ".git"))
        or os.path.exists(os.path.join(root, "pyproject.toml"))
    )


def test_find_root_of_an_installed_package(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")  # a repo holding a virtual environment
    pkg = tmp_path / "venv" / "lib" / "site-packages" / "transgrad" / "formulas"
    pkg.mkdir(parents=True)
    assert frontend.find_root(str(pkg / "unary.py")) == str(pkg.parent)


def test_load_module_reports_all_errors_sorted(write):
    path = write(BAD)
    with pytest.raises(TranslatorError) as e:
        frontend.load_module(str(path))
    assert [d.code for d in e.value.diagnostics] == ["T201", "T301"]
    assert e.value.diagnostics[0].loc.path == "formulas/mod.py"
    assert "T201" in str(e.value) and "T301" in str(e.value)


def test_load_module_is_cached_until_the_file_changes(write):
    path = write(GOOD)
    a = frontend.load_module(str(path))
    assert frontend.load_module(str(path)) is a
    st = os.stat(path)
    path.write_text(path.read_text() + "\n\nEXTRA = 1\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    b = frontend.load_module(str(path))
    assert b is not a and [c.name for c in b.constants] == ["EXTRA"]


def _import(path, name):
    """Import a formula module, leaving no global state behind: its formulas go to the
    namespace ``name`` (never the shipped one, #12), which is forgotten afterwards."""
    from transgrad import lang

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
        lang.forget_namespace(name)
    return module


def test_importing_a_formula_module_leaves_the_registry_as_it_was(write):
    from transgrad import lang

    lang.load_builtin_formulas()  # a user's module loads them (its namespace is checked)
    before = dict(lang.REGISTRY)
    mod = _import(write(GOOD, name="registry_import.py"), "tg_test_registry_import")
    assert mod.exp.name == "exp" and mod.exp.namespace == "tg_test_registry_import"
    assert lang.REGISTRY == before and lang.REGISTRY.get("exp") is before.get("exp")
    assert dict(lang.formulas_in("tg_test_registry_import")) == {}


def test_importing_a_bad_module_fails_with_all_its_errors(write):
    # transgrad.lang runs the translator installed as transgrad.translator: a distinct copy of
    # the package, with its own TranslatorError class
    from transgrad.translator.diagnostics import TranslatorError as LangTranslatorError

    path = write(BAD, name="bad_import.py")
    with pytest.raises(LangTranslatorError) as e:
        _import(path, "tg_test_bad_import")
    assert {d.code for d in e.value.diagnostics} == {"T201", "T301"}


def test_check_callable_clean_module_and_disk_cache(write, cache_dir, monkeypatch):
    path = write(GOOD, name="good_import.py")
    mod = _import(path, "tg_test_good_import")
    assert mod.exp.name == "exp"  # a transgrad.lang FormulaDef
    markers = os.listdir(cache_dir / "clean")
    assert len(markers) == 1
    # a new process (simulated by clearing the memory cache) trusts the marker: no analysis
    monkeypatch.setattr(frontend, "_checked", {})
    monkeypatch.setattr(frontend, "load_module", lambda *a: pytest.fail("re-analysed"))
    frontend.check_callable(mod.exp.fn)


def test_check_callable_ignores_functions_without_source():
    frontend.check_callable(len)
    ns = {}
    exec("def f(x):\n    return x\n", ns)  # noqa: S102
    frontend.check_callable(ns["f"])


def test_formula_model_for_the_reference_engine(write):
    path = write(
        GOOD
        + """

@formula
def shape_only(x: Tensor) -> Tensor:
    result = kernel.clone(x)

    def backward(grad):
        return ops.reshape(grad, x.shape)

    return result, backward
""",
        name="model_import.py",
    )
    mod = _import(path, "tg_test_model_import")
    f = frontend.formula_model(mod.exp)
    assert f.name == "exp"
    (c,) = f.backward.captures
    assert (c.name, c.kind, c.metadata_only) == ("result", CaptureKind.OUTPUT, False)
    g = frontend.formula_model(mod.shape_only.fn)
    (c,) = g.backward.captures
    assert (c.name, c.kind, c.metadata_only, c.metadata) == (
        "x",
        CaptureKind.INPUT,
        True,
        ("shape",),
    )
    assert frontend.formula_model(mod.exp) is f  # cached with the module


def test_real_formulas_are_accepted():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    formulas = os.path.join(root, "formulas")
    paths = sorted(p for p in os.listdir(formulas) if p.endswith(".py") and p != "__init__.py")
    if not paths:
        pytest.skip("no formulas yet")
    for p in paths:
        mod = frontend.load_module(os.path.join(formulas, p))
        assert mod.path == f"formulas/{p}"


def test_importing_clean_formulas_again_costs_no_analysis(tmp_path):
    """The first import of the shipped formulas analyses them; later processes find them in the
    clean-module cache and never import libcst."""
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([os.path.join(root, "python"), root]),
        TRANSGRAD_CACHE_DIR=str(tmp_path / "cache"),
    )
    code = (
        "import sys, transgrad.lang as L; L.load_builtin_formulas(); "
        "print(len(L.REGISTRY), 'libcst' in sys.modules)"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs[0][1] == "True" and runs[1] == [runs[0][0], "False"], runs


# Note [The capture rule reads the IR] (captures.py): the rule reads the IR of one module
# lowered alone, so it holds where the back end's lowering refuses a statement and without
# the rest of the program.

UNLOWERED_BINDING = """
@formula
def twice_bound(x: Tensor) -> Tensor:
    e = e2 = kernel.exp(x)
    result = kernel.mul(x, x)

    def backward(grad):
        return grad * e

    return result, backward
"""

ITEM_WITHOUT_CONTEXT = """
@formula
def scaled(x: Tensor) -> Tensor:
    peak = kernel.item(kernel.amax(x, (0,), False)) + 1.0
    result = kernel.mul(x, x)

    def backward(grad):
        return grad * peak

    return result, backward
"""


def _lowering_codes(path):
    """What lowering alone says of ``path`` (parsed, not fenced), with no other module."""
    from translator.source.lower import lower_program
    from translator.source.parse import parse_module

    _, diags = lower_program([parse_module(str(path), frontend.find_root(str(path)))])
    return [(d.code, d.loc.line) for d in diags]


def test_capture_rule_judges_a_binding_lowering_refuses(write):
    path = write(UNLOWERED_BINDING, name="unlowered_binding.py")
    with pytest.raises(TranslatorError) as e:
        frontend.load_module(str(path))
    # the capture of a tensor intermediate is refused at the backward's read of `e`, though
    # lowering drops the statement binding it (chained assignment, T401) and poisons `e`
    assert [(d.code, d.loc.line, d.loc.col) for d in e.value.diagnostics] == [("T201", 10, 23)]
    assert "bound on line 6" in e.value.diagnostics[0].message
    assert _lowering_codes(path) == [("T401", 6)]


def test_capture_rule_needs_no_other_module(write):
    path = write(ITEM_WITHOUT_CONTEXT, name="item_without_context.py")
    with pytest.raises(TranslatorError) as e:
        frontend.load_module(str(path))
    assert [(d.code, d.loc.line) for d in e.value.diagnostics] == [("T205", 10)]
    # lowering the module alone cannot even type `grad * peak` (ops.mul is another module's)
    assert [c for c, _ in _lowering_codes(path)] == ["T411"]


def test_an_attribute_capture_is_spelled_as_the_ir_types_it():
    # a capture's type is its local's type in the module's IR (lowered alone): one shape type,
    # ``round`` and ``math.prod`` give an int (the source-level guess said "", Dims and float)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    def types(path, formula):
        mod = frontend.load_module(os.path.join(root, path))
        (f,) = [f for f in mod.formulas if f.name == formula]
        return {c.name: c.type for c in f.backward.captures
                if c.kind is CaptureKind.ATTRIBUTE}

    assert types("formulas/reduce.py", "amax")["rdims"] == "Shape"
    assert types("formulas/nn.py", "linear")["rows"] == "int"
    assert types("formulas/nn.py", "layer_norm")["n"] == "int"
    assert types("tests/translator/backend/fixtures/basic.py", "broadcast_mul")["half"] == "int"


OTHER = """
@formula
def my_double(x: Tensor) -> Tensor:
    result = kernel.mul(x, 2.0)

    def backward(grad):
        return grad * 2.0

    return result, backward


@formula
def my_pair(x: Tensor) -> tuple[Tensor, Tensor]:
    a = kernel.mul(x, 2.0)
    b = kernel.mul(x, 3.0)

    def backward(grad_a, grad_b):
        return grad_a * 2.0 + grad_b * 3.0

    return (a, b), backward
"""

CALLER = """
@formula
def saves_other(x: Tensor) -> Tensor:
    t = ops.my_double(x)
    result = kernel.mul(t, t)

    def backward(grad):
        return grad * t * 4.0

    return result, backward


@formula
def saves_unpacked(x: Tensor) -> Tensor:
    a, b = ops.my_pair(x)
    result = kernel.mul(a, b)

    def backward(grad):
        return grad * (b * 2.0 + a * 3.0)

    return result, backward


@formula
def recomputes(x: Tensor) -> Tensor:
    result = kernel.mul(ops.my_double(x), x)

    def backward(grad):
        return grad * ops.my_double(x) * 2.0

    return result, backward
"""


def test_an_op_of_another_user_module_is_a_tensor_to_the_capture_rule(write):
    # Note [An op of another module]: the caller is analysed alone (at import, and by `check`
    # one module at a time), so ops.my_double is not in its table; a backward saving what it
    # returned is still an intermediate tensor (T201; T211 unpacked), not an untyped value
    write(OTHER, name="other.py")
    caller = write(CALLER, name="caller.py")
    with pytest.raises(TranslatorError) as e:
        frontend.load_module(str(caller))
    found = sorted((d.code, d.loc.line, d.message.split("`")[3]) for d in e.value.diagnostics)
    assert [(code, name) for code, _, name in found] == [
        ("T201", "t"), ("T211", "a"), ("T211", "b")]
