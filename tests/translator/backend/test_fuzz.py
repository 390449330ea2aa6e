"""Random formulas (issue #11): drawn from a small grammar of the formula subset (unary minus
chains, arithmetic on ints, floats and shapes, builtins, conditionals, ops calls), each is
either accepted, emitted and compiled with -Wall -Wextra -Werror, or rejected with a coded
diagnostic; never a traceback, a hang or a C++ compiler error.

What runs: each draw is emitted twice, as a ``@formula`` whose forward computes a scalar the
backward uses (compiled: the node, the forward and the bindings' signatures), and as a
``@helper`` returning the same scalar. The helpers are called from a C++ driver that includes
the generated module, on many argument tuples, and compared with Python running the same
source, which is what the reference engine does with a helper or a forward's scalar code.
Batches keep it to one compile per example; derandomized, so CI sees the same programs.
"""

import functools
import math
import os
import re
import subprocess
import textwrap

import pytest
from backend_util import CXX, ROOT, compile_cpp

from translator.backend import load_modules, translate, write_files
from translator.diagnostic_codes import CODES
from translator.diagnostics import TranslatorError
from translator.frontend import shipped_modules

hypothesis = pytest.importorskip("hypothesis")
# after the importorskip above, so a missing hypothesis skips instead of failing
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

HEADER = "import math\n\nfrom transgrad.lang import Shape, Tensor, formula, helper, kernel, ops\n"
BATCH = 8


# -- the grammar ------------------------------------------------------------------------------

def _atoms_int():
    return st.one_of(
        st.sampled_from(["n", "m", "len(s)", "s[0]", "s[-1]", "len(s[1:])"]),
        st.integers(-6, 6).map(str),
    )


def _int_expr():
    return st.recursive(
        _atoms_int(),
        lambda inner: st.one_of(
            st.tuples(st.sampled_from(["-", "- -", "-(-", "+"]), inner).map(
                lambda t: f"{t[0]}{t[1]}" + (")" if t[0] == "-(-" else "")),
            st.tuples(inner, st.sampled_from(["+", "-", "*", "//", "%"]), inner).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(inner, st.sampled_from(["+", "-"]), inner).map(
                lambda t: f"{t[0]} {t[1]} {t[2]}"),  # precedence left to the emitter
            st.tuples(st.sampled_from(["n", "m", "s[0]"]), st.integers(0, 2)).map(
                lambda t: f"{t[0]} ** {t[1]}"),
            st.tuples(st.sampled_from(["min", "max"]), inner, inner).map(
                lambda t: f"{t[0]}({t[1]}, {t[2]})"),
            inner.map(lambda e: f"abs({e})"),
            st.tuples(inner, _cond(), inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        ),
        max_leaves=6,
    )


def _cond():
    cmp = st.tuples(_atoms_int(), st.sampled_from(["<", "<=", ">", ">=", "==", "!="]),
                    _atoms_int()).map(lambda t: f"{t[0]} {t[1]} {t[2]}")
    return st.recursive(cmp, lambda inner: st.one_of(
        inner.map(lambda c: f"not {c}"),
        st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})")), max_leaves=3)


def _float_expr():
    atom = st.one_of(st.sampled_from(["a", "-a", "- -a", "float(n)", "math.pi"]),
                     st.floats(-4, 4, allow_nan=False).map(repr))
    return st.recursive(
        st.one_of(atom, st.tuples(_int_expr(), _int_expr()).map(lambda t: f"{t[0]} / {t[1]}")),
        lambda inner: st.one_of(
            inner.map(lambda e: f"-{e}"),
            st.tuples(inner, st.sampled_from(["+", "-", "*", "/"]), inner).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(inner, st.sampled_from(["+", "*"]), _int_expr()).map(
                lambda t: f"{t[0]} {t[1]} {t[2]}"),
            st.tuples(inner, _cond(), inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        ),
        max_leaves=5,
    )


def _tensor_expr():
    return st.recursive(
        st.sampled_from(["grad", "-grad", "- -grad", "-(-grad)", "(grad * k)"]),
        lambda inner: st.one_of(
            inner.map(lambda e: f"-{e}"),
            inner.map(lambda e: f"-({e})"),
            st.tuples(inner, st.sampled_from(["+", "-", "*"]), inner).map(
                lambda t: f"{t[0]} {t[1]} {t[2]}"),
            st.tuples(inner, st.sampled_from(["*", "/"]), st.sampled_from(["k", "-k", "2.0"])).map(
                lambda t: f"{t[0]} {t[1]} {t[2]}"),
            inner.map(lambda e: f"ops.cos(x) * {e}"),
        ),
        max_leaves=4,
    )


@st.composite
def program(draw):
    """{index: (helper + formula source, the helper's return type)} for one batch."""
    blocks = {}
    for i in range(BATCH):
        kind = draw(st.sampled_from(["int", "float"]))
        local = draw(_int_expr() if kind == "int" else _float_expr())
        value = re.sub(r"\bn\b", "t", draw(_int_expr() if kind == "int" else _float_expr()))
        value = f"{value} + t" if kind == "int" else f"{value} * 1.0 + t"
        tensor = draw(_tensor_expr())
        blocks[i] = (textwrap.dedent(f"""\
            @helper
            def h{i}(n: int, m: int, a: float, s: Shape) -> {kind}:
                t = {local}
                return {value}


            @formula
            def f{i}(x: Tensor, n: int, m: int, a: float) -> Tensor:
                result = kernel.exp(x)
                s = x.shape
                k = h{i}(n, m, a, s)
                def backward(grad):
                    return {tensor}
                return result, backward
            """), kind)
    return blocks


# -- running it -------------------------------------------------------------------------------

DRIVER = r"""
#include <iostream>
#include "fuzz.cpp"
int main() {
  std::cout.precision(17);
  int i; int64_t n, m, len; double a;
  while (std::cin >> i >> n >> m >> a >> len) {
    tg::Shape s(len);
    for (auto& d : s) std::cin >> d;
    try {
      switch (i) {
%s
      }
    } catch (const std::exception&) {
      std::cout << "error";
    }
    std::cout << "\n";
  }
}
"""

ARGS = [(n, m, a, s) for n in (-3, 0, 2, 5) for m in (-2, 1, 4) for a in (-1.5, 0.0, 2.25)
        for s in ((3,), (2, 4), (1, 5, 2))]


@functools.cache
def shipped():
    """The shipped formulas: the context the drawn formulas' ops resolve in (not a fixture,
    so that hypothesis never prints them)."""
    return tuple(shipped_modules())


def assemble(blocks):
    """(module source, {first line of a block: its index})."""
    source, starts = HEADER, {}
    for i, (text, _) in sorted(blocks.items()):
        source += "\n\n"
        starts[source.count("\n") + 1] = i
        source += text
    return source, starts


def translate_accepted(tmp_path, blocks, context):
    """Translate; a rejected block is dropped (its diagnostics must all be coded) and the
    rest translated again. Returns (files, the source, the blocks kept)."""
    path = tmp_path / "fuzz.py"
    blocks = dict(blocks)
    while blocks:
        source, starts = assemble(blocks)
        path.write_text(source)
        try:
            modules = load_modules([str(path)], str(tmp_path))
            return translate(modules + list(context))[1], source, blocks
        except TranslatorError as e:
            assert e.diagnostics
            for d in e.diagnostics:
                assert d.code in CODES and d.loc.path == "fuzz.py", d.render()
                blocks.pop(starts[max(line for line in starts if line <= d.loc.line)], None)
    pytest.skip("every formula of the batch was rejected")


def python_value(source: str, i: int, args):
    """Run helper ``h{i}`` of the module as plain Python (as the reference engine does)."""
    text = source.split(f"@helper\ndef h{i}(", 1)[1].split("\n\n\n", 1)[0]
    namespace = {"math": math, "Shape": tuple}
    exec(f"def h{i}(" + text, namespace)  # noqa: S102 - our own generated source
    try:
        return namespace[f"h{i}"](*args)
    except (ZeroDivisionError, IndexError, ValueError):
        return "error"


# Each example is a translation and a compile (about 3 s): few examples of BATCH formulas
# each, no shrinking (a failure prints the whole drawn module, which is small enough to read).
@settings(max_examples=6, deadline=None, derandomize=True, database=None,
          phases=(Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(program())
def test_random_formulas_compile_and_match_python(tmp_path_factory, drawn):
    if CXX is None:
        pytest.skip("no C++ compiler")
    tmp_path = tmp_path_factory.mktemp("fuzz")
    files, source, kept = translate_accepted(tmp_path, drawn, shipped())
    out = tmp_path / "gen"
    write_files(files, str(out))
    cases = "\n".join(f"        case {i}: std::cout << tg::ops::helpers::h{i}(n, m, a, s); break;"
                      for i in kept)
    (out / "driver.cpp").write_text(DRIVER % cases)
    exe = out / "driver"
    rc, text = compile_cpp(["-O0", "-Wall", "-Wextra", "-Werror", f"-I{os.path.join(ROOT, 'csrc')}",
                            f"-I{out}", str(out / "driver.cpp"),
                            os.path.join(ROOT, "csrc", "tensor", "small_alloc.cpp"),
                            "-ffunction-sections", "-fdata-sections", "-Wl,--gc-sections",
                            "-o", str(exe)])
    assert rc == 0, text
    lines = [f"{i} {n} {m} {a!r} {len(s)} {' '.join(map(str, s))}" for i in kept
             for n, m, a, s in ARGS]
    proc = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, check=True, timeout=60)
    got = proc.stdout.splitlines()
    assert len(got) == len(lines)
    for line, g in zip(lines, got):
        i, n, m, a, _, *s = line.split()
        want = python_value(source, int(i), (int(n), int(m), float(a), tuple(map(int, s))))
        if isinstance(want, float) and g != "error":
            assert math.isclose(float(g), want, rel_tol=1e-12, abs_tol=1e-12) or (
                math.isnan(want) and math.isnan(float(g))), (line, g, want)
        else:
            assert g == str(want), (line, g, want)
