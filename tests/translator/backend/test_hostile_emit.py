"""Hostile input (issue #11), back end: what the translator accepts compiles and means what
Python means; what C++ cannot express is a coded diagnostic naming the formula's line."""

import os
import sysconfig
import textwrap

import pytest
from backend_util import ROOT, compile_cpp, needs_cxx

from translator.backend import load_modules, translate, write_files
from translator.diagnostics import TranslatorError
from translator.frontend import shipped_modules

HEADER = "import math\n\nfrom transgrad.lang import Tensor, formula, kernel, ops\n\nK = 3\n\n"

# Every formula here was miscompiled or refused by the C++ compiler before #11.
ACCEPTED = """
@formula
def negneg(x: Tensor, n: int) -> Tensor:
    result = kernel.exp(x)
    m = - -n
    def backward(grad):
        return -(-grad) * m
    return result, backward


@formula
def runtime_names(x: Tensor, NoGradGuard: int, any_requires_grad: float = math.nan) -> Tensor:
    result = kernel.exp(x)
    make_node = NoGradGuard + 1
    set_history = make_node * 2
    collect_next_edges = set_history - 1
    int = 3
    new_v = -make_node
    new = new_v
    def backward(grad):
        return grad * (make_node + collect_next_edges + new) * any_requires_grad
    return result, backward


@formula
def defaults(x: Tensor, a: float = math.inf, n: int = K, k: int = 2 * K - 1,
             lo: int = -(2**63), s: float = -math.inf) -> Tensor:
    result = kernel.exp(x)
    def backward(grad):
        return grad * (n + k) * a * s + lo
    return result, backward


@formula
def and_in_or(x: Tensor, n: int, m: int) -> Tensor:
    result = kernel.exp(x)
    c = 2.0 if n == 0 and m <= 1 or m > 3 else 1.0
    def backward(grad):
        return grad * c
    return result, backward


@formula
def sin_backward(x: Tensor) -> Tensor:
    result = kernel.sin(x)
    def backward(grad):
        return grad * ops.cos(x)
    return result, backward
"""


@pytest.fixture(scope="module")
def shipped():
    return shipped_modules()


def translated(tmp_path, body, shipped, name="hostile"):
    path = tmp_path / f"{name}.py"
    path.write_text(HEADER + textwrap.dedent(body))
    mods = load_modules([str(path)], str(tmp_path))
    return translate(mods + list(shipped))[1]


def test_accepted_formulas_compile_and_keep_python_meaning(tmp_path, shipped):
    files = translated(tmp_path, ACCEPTED, shipped)
    cpp, header = files["hostile.cpp"], files["hostile.h"]
    assert "m = -(-n);" in cpp  # not the pre-decrement `--n`
    assert "-(-grad)" in cpp
    assert "(n == 0 && m <= 1) || m > 3" in cpp  # gcc's -Wparentheses (-Werror) asks for these
    assert "#include <limits>" in header  # the nan/inf defaults name std::numeric_limits
    assert "int64_t n = 3," in header and "int64_t k = 5," in header  # folded constants
    assert "int64_t lo = INT64_MIN," in header
    for name in ("make_node", "set_history", "collect_next_edges", "NoGradGuard",
                 "any_requires_grad", "int", "new", "new_v"):
        assert f" {name}_v" in cpp, name  # a local never hides the runtime or a keyword
    assert "new_v_v = -make_node_v" in cpp  # mangling is injective
    needs_cxx()
    out = tmp_path / "gen"
    write_files(files, str(out))
    flags = ["-fsyntax-only", "-Wall", "-Wextra", "-Werror", f"-I{os.path.join(ROOT, 'csrc')}",
             f"-I{out}"]
    rc, text = compile_cpp([*flags, str(out / "hostile.cpp")])
    assert rc == 0, text
    pybind11 = pytest.importorskip("pybind11")
    flags += [f"-I{pybind11.get_include()}", f"-I{sysconfig.get_paths()['include']}"]
    rc, text = compile_cpp([*flags, str(out / "bindings.cpp")])
    assert rc == 0, text


def rejected(tmp_path, body, shipped):
    with pytest.raises(TranslatorError) as e:
        translated(tmp_path, body, shipped)
    return e.value.diagnostics


def test_node_class_collision_names_both_formulas(tmp_path, shipped):
    body = """
    @formula
    def foo_bar(x: Tensor) -> Tensor:
        result = kernel.exp(x)
        def backward(grad):
            return grad * result
        return result, backward


    @formula
    def fooBar(x: Tensor) -> Tensor:
        result = kernel.exp(x)
        def backward(grad):
            return grad * result
        return result, backward
    """
    (d,) = rejected(tmp_path, body, shipped)
    assert d.code == "T403"
    assert "`foo_bar`" in d.message and "`fooBar`" in d.message and "FooBarBackward0" in d.message
    assert d.loc.line == HEADER.count("\n") + 11


@pytest.mark.parametrize(("expr", "shown"), [("n + 2**70", "2 ** 70"),
                                             ("n * 9223372036854775808", "9223372036854775808"),
                                             ("n - (2**62 + 2**62)", "9223372036854775808")])
def test_integer_beyond_int64_in_an_expression_is_refused_at_its_line(tmp_path, shipped, expr,
                                                                      shown):
    body = f"""
    @formula
    def big(x: Tensor, n: int) -> Tensor:
        result = kernel.exp(x)
        m = {expr}
        def backward(grad):
            return grad * m
        return result, backward
    """
    (d,) = rejected(tmp_path, body, shipped)
    assert d.code == "T115"
    assert shown in d.message
    assert d.loc.line == HEADER.count("\n") + 5


def test_a_default_that_is_no_constant_is_a_diagnostic(tmp_path, shipped):
    body = """
    @formula
    def f(x: Tensor, n: int = max(1, K)) -> Tensor:
        result = kernel.exp(x)
        def backward(grad):
            return grad * n
        return result, backward
    """
    diags = rejected(tmp_path, body, shipped)
    assert diags and all(d.loc.line == HEADER.count("\n") + 3 for d in diags)


def test_wrapping_a_line_ending_in_a_comma_terminates():
    from translator.cpp_wrap import wrap_line

    line = "      " + "a" * 120 + "),"  # continues a call opened on a line above
    assert "".join(wrap_line(line)).replace(" ", "") == line.replace(" ", "")


def test_an_int_compared_with_itself_is_folded(tmp_path, shipped):
    body = """
    @formula
    def f(x: Tensor, n: int, a: float) -> Tensor:
        result = kernel.exp(x)
        k = 1 if n != n or a != a else 2
        def backward(grad):
            return grad * k
        return result, backward
    """
    cpp = translated(tmp_path, body, shipped)["hostile.cpp"]
    assert "n != n" not in cpp and "a != a" in cpp  # a float may be NaN
