"""Generated code for the fixture modules matches the goldens byte for byte.

On a mismatch the test prints the diff and the command that updates the goldens:
``UPDATE_GOLDENS=1 pytest tests/translator/backend``.
"""

import difflib
import os

import pytest
from backend_util import FIXTURES, GOLDEN, ROOT, compile_cpp, needs_cxx

from translator.backend import load_modules, translate, write_files

UPDATE = os.environ.get("UPDATE_GOLDENS") == "1"


@pytest.fixture(scope="module")
def generated():
    _, files = translate(load_modules(FIXTURES, ROOT))
    return files


def test_fixture_files_match_goldens(generated):
    if UPDATE:
        write_files(generated, GOLDEN)
    problems = []
    for name in sorted(generated):
        path = os.path.join(GOLDEN, name)
        if not os.path.exists(path):
            problems.append(f"missing golden {name}")
            continue
        with open(path, encoding="utf-8") as f:
            want = f.read()
        if want != generated[name]:
            diff = difflib.unified_diff(want.splitlines(), generated[name].splitlines(),
                                        f"golden/{name}", f"generated/{name}", lineterm="")
            problems.append("\n".join(diff))
    stale = set(os.listdir(GOLDEN)) - set(generated)
    problems += [f"stale golden {n}" for n in sorted(stale)]
    assert not problems, ("\n\n".join(problems)
                          + "\n\nupdate with: UPDATE_GOLDENS=1 pytest tests/translator/backend")


def test_translation_is_reproducible():
    a = translate(load_modules(FIXTURES, ROOT))[1]
    b = translate(load_modules(list(reversed(FIXTURES)), ROOT))[1]
    assert a == b
    assert not any(ROOT in text for text in a.values()), "absolute path in generated code"


def test_write_files_rewrites_only_changes(generated, tmp_path):
    first = write_files(generated, str(tmp_path))
    assert len(first) == len(generated)
    assert write_files(generated, str(tmp_path)) == []
    changed = dict(generated, **{"ops.h": generated["ops.h"] + "// changed\n"})
    assert write_files(changed, str(tmp_path)) == [str(tmp_path / "ops.h")]


def _core_headers_exist():
    return all(os.path.exists(os.path.join(ROOT, "csrc", p)) for p in (
        "autograd/autograd.h", "kernels/kernels.h", "tensor/tensor.h"))


@pytest.mark.parametrize("name", ["basic.cpp", "multi.cpp"])  # bindings: test_formulas
def test_goldens_compile_cleanly(generated, tmp_path, name):
    needs_cxx()
    if not _core_headers_exist():
        pytest.skip("the C++ core headers are not there yet")
    write_files(generated, str(tmp_path))
    rc, out = compile_cpp(["-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                           f"-I{os.path.join(ROOT, 'csrc')}", f"-I{tmp_path}",
                           str(tmp_path / name)])
    assert rc == 0, out
