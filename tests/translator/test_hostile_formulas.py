"""Hostile input (issue #11): sources that crashed, hung or exhausted the translator's front end
each get a coded diagnostic at their line, within a second, never a traceback."""

import time

import pytest

from translator.diagnostics import TranslatorError
from translator.source.parse import MAX_DEPTH, parse_source

HEADER = "from transgrad.lang import Tensor, formula, kernel, ops\n\n"


def backward_returning(expr):
    return HEADER + (
        "@formula\n"
        "def f(x: Tensor) -> Tensor:\n"
        "    result = kernel.exp(x)\n"
        "    def backward(grad):\n"
        f"        return {expr}\n"
        "    return result, backward\n"
    )


def diagnose(analyse, source):
    """(codes, lines, seconds) of analysing ``source`` through the whole front end."""
    start = time.perf_counter()
    module, diags = analyse(source, header=False)
    elapsed = time.perf_counter() - start
    assert module is None, "the source must be rejected"
    return [d.code for d in diags], [d.loc.line for d in diags], elapsed


BACKWARD_LINE = HEADER.count("\n") + 5


@pytest.mark.parametrize(
    ("expr", "code"),
    [
        ("(" * 5000 + "grad" + ")" * 5000, "T100"),  # segfaulted in libcst's native parser
        (" + ".join(["grad"] * 400), "T114"),  # RecursionError
        (" + ".join(["grad"] * 800), "T114"),  # KeyError
        ("-" * 5000 + "grad", "T114"),  # CPython's own parser runs out of stack
        ("ops.exp(" * 150 + "grad" + ")" * 150, "T114"),
    ],
    ids=["parens-5000", "sum-400", "sum-800", "unary-5000", "calls-150"],
)
def test_deep_expression_is_a_diagnostic_at_its_line(analyse, expr, code):
    codes, lines, elapsed = diagnose(analyse, backward_returning(expr))
    assert codes == [code]
    assert lines == [BACKWARD_LINE]
    assert elapsed < 1.0


def test_depth_limit_is_exact():
    # MAX_DEPTH counts AST levels from the module: module > def > def > return > the sum.
    def source(terms):
        return backward_returning(" + ".join(["grad"] * terms))

    parse_source(source(MAX_DEPTH - 5), "formulas/m.py")  # accepted
    with pytest.raises(TranslatorError) as e:
        parse_source(source(MAX_DEPTH), "formulas/m.py")
    assert [d.code for d in e.value.diagnostics] == ["T114"]


@pytest.mark.parametrize(
    "constant",
    ["9 ** 9 ** 9", "2 ** 10**12 // 2 ** 10**12", '"a" * 10**10', "(1,) * 10**12", "2 ** 64",
     "-(2**63) - 1", "10**10 * 10**10"],
)
def test_constant_folding_is_bounded(analyse, constant):
    source = HEADER + f"C = {constant}\n"
    codes, lines, elapsed = diagnose(analyse, source)
    assert codes == ["T115"]
    assert lines == [3]
    assert elapsed < 1.0


@pytest.mark.parametrize("constant", ["2 ** 63 - 1", "-(2**63)", "2.0 ** 100", "2**200 // 2**190"])
def test_constants_within_bounds_fold(analyse, constant):
    module, diags = analyse(HEADER + f"C = {constant}\n", header=False)
    assert diags == []
    assert module.constants[0].value == eval(constant)


def test_default_out_of_int64_is_a_diagnostic(analyse):
    source = HEADER + (
        "@formula\n"
        "def f(x: Tensor, k: int = 2**70) -> Tensor:\n"
        "    return x * k\n"
    )
    codes, lines, _ = diagnose(analyse, source)
    assert codes == ["T115"]
    assert lines == [4]
