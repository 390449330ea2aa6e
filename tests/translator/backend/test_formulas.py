"""The real formulas/ translate, and the generated C++ compiles with -Wall -Wextra -Werror
against the C++ core's headers (skipped until the core headers exist). The compilers run in
parallel, once per module."""

import glob
import os
import subprocess
import sysconfig

import pytest
from backend_util import CXX, ROOT

from translator.backend import load_modules, translate, write_files

MODULES = sorted(p for p in glob.glob(os.path.join(ROOT, "formulas", "*.py"))
                 if not p.endswith("__init__.py"))
STEMS = [os.path.splitext(os.path.basename(m))[0] for m in MODULES] + ["bindings",
                                                                      "kernel_bindings"]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    if not MODULES:
        pytest.skip("no formula modules yet")
    _, files = translate(load_modules(MODULES, ROOT))
    out = tmp_path_factory.mktemp("generated")
    write_files(files, str(out))
    return out, files


@pytest.fixture(scope="module")
def compiled(generated):
    """{stem: (returncode, output)}, every translation unit compiled at once."""
    if CXX is None:
        pytest.skip("no C++ compiler")
    if not os.path.exists(os.path.join(ROOT, "csrc", "autograd", "autograd.h")):
        pytest.skip("the C++ core headers are not there yet")
    out, _ = generated
    flags = ["-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
             f"-I{os.path.join(ROOT, 'csrc')}", f"-I{out}"]
    try:
        import pybind11

        flags += [f"-I{pybind11.get_include()}", f"-I{sysconfig.get_paths()['include']}"]
    except ImportError:
        pass
    procs = {stem: subprocess.Popen([CXX, *flags, str(out / f"{stem}.cpp")],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for stem in STEMS}
    return {stem: (p.wait(), p.stdout.read()) for stem, p in procs.items()}


def test_every_formula_module_translates(generated):
    _, files = generated
    for stem in STEMS[:-2]:
        assert f"{stem}.cpp" in files and f"{stem}.h" in files
    assert {"ops.h", "bindings.cpp", "_C.pyi"} <= set(files)


@pytest.mark.slow
@pytest.mark.parametrize("stem", STEMS)
def test_generated_code_compiles(compiled, stem):
    if stem in ("bindings", "kernel_bindings"):
        pytest.importorskip("pybind11")
    rc, text = compiled[stem]
    assert rc == 0, text


def test_bindings_and_stubs_cover_every_formula(generated):
    import ast

    _, files = generated
    tree = ast.parse(files["_C.pyi"])
    ops_class = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ops")
    stubbed = {f.name for f in ops_class.body if isinstance(f, ast.FunctionDef)}
    bound = {line.split('"')[1] for line in files["bindings.cpp"].splitlines()
             if line.strip().startswith("m.def(")}
    assert stubbed == bound
    for name in ("sin", "sum", "cat", "max_dim", "linear", "cross_entropy"):
        assert name in bound


def test_generated_lines_fit_in_100_columns(generated):
    _, files = generated
    for name, text in files.items():
        if name.endswith((".cpp", ".h")):
            long = [ln for ln in text.splitlines()
                    if len(ln) > 100 and not ln.lstrip().startswith("//")]
            assert not long, f"{name}: {long[:3]}"


def test_bindings_carry_the_formula_docstrings(generated):
    """help(transgrad.ops.NAME) shows the formula's docstring: emit_bindings passes it to
    m.def as adjacent string literals, which decode to the docstring exactly."""
    import ast
    import inspect

    _, files = generated
    docs, current, pieces = {}, None, []
    for line in files["bindings.cpp"].splitlines():
        stripped = line.strip()
        if stripped.startswith("m.def("):
            current, pieces = stripped.split('"')[1], []
        elif stripped.startswith('"') and current:
            pieces.append(ast.literal_eval(stripped.rstrip(",")))
            docs[current] = "".join(pieces)
        elif pieces:  # the docstring has ended: a wrapped default such as `"None")` is not it
            current = None
    sources = {}
    for path in MODULES:
        tree = ast.parse(open(path, encoding="utf-8").read())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and ast.get_docstring(node):
                sources[node.name] = inspect.cleandoc(ast.get_docstring(node, clean=False))
    bound = {line.split('"')[1] for line in files["bindings.cpp"].splitlines()
             if line.strip().startswith("m.def(")}
    expected = {n: d for n, d in sources.items() if n in bound}
    assert len(expected) > 50 and docs == expected
