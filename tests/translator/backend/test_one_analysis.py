"""Each formula is lowered once (issue #10; Note [One analysis] in translator/frontend.py): the
back end emits the IR the front end lowered for the capture rule, and lowers a module again
only when its build gives a name it looked up another signature."""

import glob
import os
import textwrap

import pytest
from backend_util import ROOT

import translator.backend as backend
import translator.frontend as frontend
from translator.backend import load_modules, translate
from translator.frontend import shipped_modules

MODULES = sorted(p for p in glob.glob(os.path.join(ROOT, "formulas", "*.py"))
                 if not p.endswith("__init__.py"))


@pytest.fixture
def lowerings(monkeypatch):
    """Every module the front end and the back end lower, by path, in order."""
    from translator.source import lower

    seen: list[str] = []
    real = lower.lower_module

    def counting(mod, *args, **kwargs):
        seen.append(mod.path)
        return real(mod, *args, **kwargs)

    monkeypatch.setattr(lower, "lower_module", counting)
    monkeypatch.setattr(backend, "lower_module", counting)
    monkeypatch.setattr(frontend, "_modules", {})  # no module analysed before
    monkeypatch.setenv("TRANSGRAD_CACHE_DIR", "off")
    return seen


def test_the_shipped_build_lowers_each_module_once(lowerings):
    modules = load_modules(MODULES, ROOT)
    assert sorted(lowerings) == sorted(m.path for m in modules)
    lowered, files = translate(modules)
    assert sorted(lowerings) == sorted(m.path for m in modules)  # the back end lowered none
    assert [m.path for m in lowered] == [m.path for m in modules]
    assert all(m.lowered is low for m, low in zip(modules, lowered))
    assert "TanhBackward0" in files["unary.cpp"]


def _write(tmp_path, name, body):
    (tmp_path / "pyproject.toml").write_text("")
    path = tmp_path / name
    path.write_text("from transgrad.lang import Tensor, formula, kernel, ops\n\n"
                    + textwrap.dedent(body))
    return str(path)


DOUBLE = """
@formula
def my_double(x: Tensor) -> Tensor:
    result = kernel.mul(x, 2.0)

    def backward(grad):
        return grad * 2.0

    return result, backward
"""

QUADRUPLE = """
@formula
def my_quadruple(x: Tensor) -> Tensor:
    result = ops.my_double(ops.my_double(x))

    def backward(grad):
        return grad * 4.0

    return result, backward
"""


def test_a_user_module_beside_the_shipped_formulas_is_lowered_once(tmp_path, lowerings):
    path = _write(tmp_path, "double.py", DOUBLE)
    context = shipped_modules()
    before = len(lowerings)
    modules = load_modules([path], str(tmp_path))
    assert lowerings[before:] == ["double.py"]
    translate(modules, context)
    assert lowerings[before:] == ["double.py"]


def test_a_module_calling_another_of_its_build_is_lowered_again(tmp_path, lowerings):
    # alone, ops.my_double is unknown to quadruple.py (T403 in its IR); in the build it is
    # double.py's formula: that module, and only it, is lowered again against the build's table
    paths = [_write(tmp_path, "double.py", DOUBLE), _write(tmp_path, "quadruple.py", QUADRUPLE)]
    context = shipped_modules()
    before = len(lowerings)
    modules = load_modules(paths, str(tmp_path))
    assert "my_double" in modules[1].lowered.signature_reads
    _, files = translate(modules, context)
    assert lowerings[before:] == ["double.py", "quadruple.py", "quadruple.py"]
    assert "ops::my_double(ops::my_double(x))" in files["quadruple.cpp"].replace("tg::", "")
