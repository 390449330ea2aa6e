"""The real formulas/ translate, and the generated C++ compiles with -Wall -Wextra -Werror
against the C++ core's headers (skipped until the core headers exist)."""

import glob
import os
import sysconfig

import pytest
from backend_util import ROOT, compile_cpp, needs_cxx

from translator.backend import load_modules, translate, write_files

MODULES = sorted(p for p in glob.glob(os.path.join(ROOT, "formulas", "*.py"))
                 if not p.endswith("__init__.py"))


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    if not MODULES:
        pytest.skip("no formula modules yet")
    _, files = translate(load_modules(MODULES, ROOT))
    out = tmp_path_factory.mktemp("generated")
    write_files(files, str(out))
    return out, files


def test_every_formula_module_translates(generated):
    _, files = generated
    for m in MODULES:
        stem = os.path.splitext(os.path.basename(m))[0]
        assert f"{stem}.cpp" in files and f"{stem}.h" in files
    assert {"ops.h", "bindings.cpp", "_C.pyi"} <= set(files)


@pytest.mark.slow
@pytest.mark.parametrize("stem", [os.path.splitext(os.path.basename(m))[0] for m in MODULES]
                         + ["bindings"])
def test_generated_code_compiles(generated, stem):
    needs_cxx()
    if not os.path.exists(os.path.join(ROOT, "csrc", "autograd", "autograd.h")):
        pytest.skip("the C++ core headers are not there yet")
    out, _ = generated
    flags = []
    if stem == "bindings":
        pybind11 = pytest.importorskip("pybind11")
        flags = [f"-I{pybind11.get_include()}", f"-I{sysconfig.get_paths()['include']}"]
    rc, text = compile_cpp(["-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                            f"-I{os.path.join(ROOT, 'csrc')}", f"-I{out}", *flags,
                            str(out / f"{stem}.cpp")])
    assert rc == 0, text
