"""The built module holds every formula module: what is in formulas/ when the wheel is built is
in transgrad._C.ops, and a module added to formulas/ is translated and bound by the same build
step (CMake globs formulas/*.py and runs `python -m translator emit` over all of them)."""

import os
import shutil
import subprocess
import sys
import textwrap

from formula_samples import shipped_formulas

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_every_shipped_formula_is_bound(compiled):
    missing = [n for n in shipped_formulas() if not hasattr(compiled._C.ops, n)]
    assert missing == []


def test_an_added_formula_module_is_translated_and_bound(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(os.path.join(ROOT, "formulas"), repo / "formulas")
    (repo / "pyproject.toml").write_text("")
    (repo / "formulas" / "zz_added.py").write_text(textwrap.dedent("""
        from transgrad.lang import T, Tensor, formula, kernel, ops, samples


        @samples(T(3))
        @formula
        def cube_added(x: Tensor) -> Tensor:
            result = kernel.mul(kernel.mul(x, x), x)

            def backward(grad):
                return grad * 3.0 * x * x

            return result, backward
        """))
    modules = sorted(str(p) for p in (repo / "formulas").glob("*.py") if p.name != "__init__.py")
    out = tmp_path / "generated"
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-m", "translator", "emit", *modules, "--out", str(out)],
                       cwd=repo, env=env, capture_output=True, text=True, timeout=300,
                       check=False)
    assert r.returncode == 0, r.stderr
    assert (out / "zz_added.cpp").is_file() and (out / "zz_added.h").is_file()
    assert "struct CubeAddedBackward0" in (out / "zz_added.cpp").read_text()
    assert '"cube_added"' in (out / "bindings.cpp").read_text()
    assert '#include "zz_added.h"' in (out / "ops.h").read_text()
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        assert "formulas/*.py" in f.read()  # the build picks up every module
