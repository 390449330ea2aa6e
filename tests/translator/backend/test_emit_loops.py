"""Generated helpers read as C++ (issue #10 item 5): a tuple grown in a loop is appended to in
place (Note [Growing a tuple]) and ``xs[i]`` under ``for i in range(len(xs))`` indexes
directly (Note [Indexing in range]), only where that is the same value."""

import os
import re
import subprocess
import textwrap

from backend_util import ROOT, compile_cpp, needs_cxx

from translator.backend import load_modules, translate, write_files

HEADER = "from transgrad.lang import Shape, helper\n\n"

BODY = """
@helper
def grow(s: Shape) -> Shape:
    out = ()
    for i in range(len(s)):
        out = out + (s[i],)
        out = out + (i, -1)
        out = out + out[:1]
    return out


@helper
def rebinds(s: Shape) -> Shape:
    out = s
    for i in range(len(s)):
        out = (i,) + out
    for j in range(len(s)):
        s = s + (s[j],)
    return out + s
"""


def translated(tmp_path):
    path = tmp_path / "loops.py"
    path.write_text(HEADER + textwrap.dedent(BODY))
    return translate(load_modules([str(path)], str(tmp_path)))[1]


def test_appends_in_place_and_indexes_directly_only_where_safe(tmp_path):
    cpp = translated(tmp_path)["loops.cpp"]
    assert "out.push_back(s[i]);" in cpp
    assert "py::extend(out, Shape{i, -1});" in cpp
    assert "py::extend(out, py::slice(out, std::nullopt, 1));" in cpp
    assert "out = py::concat(Shape{i}, out);" in cpp  # not an append
    assert "s.push_back(py::index(s, j));" in cpp  # s grows in the loop: indexing stays checked


def test_grown_tuples_equal_python(tmp_path):
    needs_cxx()
    files = translated(tmp_path)
    out = tmp_path / "gen"
    write_files(files, str(out))
    (out / "main.cpp").write_text(
        '#include <iostream>\n#include "loops.cpp"\nint main() {\n'
        "  tg::Shape s{4, 7, 9};\n"
        "  std::cout << tg::py::str(tg::ops::helpers::grow(s)) << '\\n';\n"
        "  std::cout << tg::py::str(tg::ops::helpers::rebinds(s)) << '\\n';\n}\n")
    exe = out / "main"
    rc, text = compile_cpp(["-O0", "-Wall", "-Wextra", "-Werror", f"-I{os.path.join(ROOT, 'csrc')}",
                            f"-I{out}", str(out / "main.cpp"),
                            os.path.join(ROOT, "csrc", "tensor", "small_alloc.cpp"),
                            "-ffunction-sections", "-Wl,--gc-sections", "-o", str(exe)])
    assert rc == 0, text
    got = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split("\n")
    namespace: dict = {"helper": lambda f: f, "Shape": tuple}
    exec(textwrap.dedent(BODY), namespace)  # noqa: S102 - the module's own source
    s = (4, 7, 9)
    assert got[:2] == [str(namespace["grow"](s)), str(namespace["rebinds"](s))]


def test_no_tuple_is_copied_per_iteration_in_the_shipped_formulas():
    modules = sorted(p for p in os.listdir(os.path.join(ROOT, "formulas"))
                     if p.endswith(".py") and p != "__init__.py")
    files = translate(load_modules([os.path.join(ROOT, "formulas", m) for m in modules],
                                   ROOT))[1]
    grown = [line for name, text in files.items() if name.endswith(".cpp")
             for line in text.splitlines() if re.search(r"\b(\w+) = py::concat\(\1,", line)]
    assert grown == []


def test_rebinding_a_loop_variable_is_a_diagnostic(tmp_path):
    import pytest

    from translator.diagnostics import TranslatorError

    path = tmp_path / "loops.py"
    path.write_text(HEADER + textwrap.dedent("""
        @helper
        def f(s: Shape) -> int:
            total = 0
            for i in range(len(s)):
                i = i + 1
                total = total + s[i]
            return total
        """))
    with pytest.raises(TranslatorError) as e:
        translate(load_modules([str(path)], str(tmp_path)))
    (d,) = e.value.diagnostics
    assert d.code == "T401" and "loop variable `i`" in d.message and d.loc.line == 7
