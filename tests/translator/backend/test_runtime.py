"""csrc/formula/runtime.h keeps Python semantics: a C++ driver evaluates tg::py helpers on many
values drawn by hypothesis and the results are compared with Python's."""

import math
import os
import subprocess

import pytest
from backend_util import CXX, ROOT, compile_cpp, needs_cxx

hypothesis = pytest.importorskip("hypothesis")
# after the importorskip above, so a missing hypothesis skips instead of failing
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

DRIVER = r"""
#include <iostream>
#include <string>
#include "formula/runtime.h"
using namespace tg;
static std::optional<int64_t> opt(const std::string& s) {
  if (s == "None") return std::nullopt;
  return std::stoll(s);
}
int main() {
  std::cout.precision(17);
  std::string op;
  while (std::cin >> op) {
    try {
      if (op == "ii") {  // int op int
        std::string f; int64_t a, b; std::cin >> f >> a >> b;
        if (f == "floordiv") std::cout << py::floordiv(a, b);
        else if (f == "mod") std::cout << py::mod(a, b);
        else if (f == "truediv") std::cout << py::truediv(a, b);
        else if (f == "pow") std::cout << py::pow(a, b);
        else if (f == "min") std::cout << py::min(a, b);
        else if (f == "max") std::cout << py::max(a, b);
      } else if (op == "ff") {  // float op float
        std::string f; double a, b; std::cin >> f >> a >> b;
        if (f == "floordiv") std::cout << py::floordiv(a, b);
        else if (f == "mod") std::cout << py::mod(a, b);
        else if (f == "truediv") std::cout << py::truediv(a, b);
      } else if (op == "round") {
        double a; std::cin >> a;
        std::cout << py::round(a);
      } else if (op == "index") {
        int64_t n, i; std::cin >> n; std::vector<int64_t> v(n);
        for (auto& x : v) std::cin >> x;
        std::cin >> i;
        std::cout << py::index(v, i);
      } else if (op == "slice") {
        int64_t n; std::cin >> n; std::vector<int64_t> v(n); for (auto& x : v) std::cin >> x;
        std::string a, b; int64_t c; std::cin >> a >> b >> c;
        std::cout << py::str(py::slice(v, opt(a), opt(b), c));
      }
    } catch (const ValueError& e) {
      std::cout << "ValueError";
    } catch (const IndexError& e) {
      std::cout << "IndexError";
    }
    std::cout << "\n";
  }
}
"""


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    if CXX is None:
        pytest.skip("no C++ compiler")
    d = tmp_path_factory.mktemp("runtime")
    src = d / "driver.cpp"
    src.write_text(DRIVER)
    exe = d / "driver"
    rc, out = compile_cpp(["-O1", "-Wall", "-Wextra", "-Werror", f"-I{ROOT}/csrc", str(src),
                           "-o", str(exe)])
    assert rc == 0, out

    def run(lines):
        proc = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True,
                              text=True, check=True)
        return proc.stdout.splitlines()

    return run


def py_tuple(t):
    return "(" + ", ".join(map(str, t)) + ("," if len(t) == 1 else "") + ")"


def expect(fn):
    try:
        v = fn()
    except ZeroDivisionError:
        return "ValueError"
    except IndexError:
        return "IndexError"
    return v


ints = st.integers(min_value=-10**6, max_value=10**6)
small = st.integers(min_value=-12, max_value=12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["floordiv", "mod", "truediv", "min", "max"]), ints,
                          ints), min_size=1, max_size=40))
def test_int_arithmetic_matches_python(driver, cases):
    ops = {"floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b,
           "truediv": lambda a, b: a / b, "min": min, "max": max}
    got = driver([f"ii {f} {a} {b}" for f, a, b in cases])
    for (f, a, b), g in zip(cases, got):
        want = expect(lambda f=f, a=a, b=b: ops[f](a, b))
        if isinstance(want, float):
            assert float(g) == pytest.approx(want, rel=1e-15), (f, a, b)
        else:
            assert g == str(want), (f, a, b)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(-20, 20), st.integers(0, 12)), min_size=1, max_size=30))
def test_int_pow_matches_python(driver, cases):
    got = driver([f"ii pow {a} {b}" for a, b in cases])
    assert got == [str(a ** b) for a, b in cases]


finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).map(lambda x: round(x, 3))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["floordiv", "mod", "truediv"]), finite, finite),
                min_size=1, max_size=40))
def test_float_arithmetic_matches_python(driver, cases):
    ops = {"floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b,
           "truediv": lambda a, b: a / b}
    got = driver([f"ff {f} {a!r} {b!r}" for f, a, b in cases])
    for (f, a, b), g in zip(cases, got):
        want = expect(lambda f=f, a=a, b=b: ops[f](a, b))
        if want == "ValueError":
            assert g == want, (f, a, b)
        else:
            assert float(g) == want and math.copysign(1, float(g)) == math.copysign(1, want), \
                (f, a, b, g, want)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.one_of(finite, st.integers(-50, 50).map(lambda n: n + 0.5)), min_size=1,
                max_size=30))
def test_round_is_half_to_even_like_python(driver, values):
    assert driver([f"round {v!r}" for v in values]) == [str(round(v)) for v in values]


shapes = st.lists(st.integers(0, 9), max_size=6)


@settings(max_examples=60, deadline=None)
@given(shapes, small)
def test_index_matches_python(driver, shape, i):
    (got,) = driver([f"index {len(shape)} {' '.join(map(str, shape))} {i}"])
    assert got == str(expect(lambda: tuple(shape)[i]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(shapes, st.one_of(st.none(), small), st.one_of(st.none(), small),
                          st.integers(-3, 3)), min_size=1, max_size=30))
def test_slice_matches_python(driver, cases):
    lines = [f"slice {len(s)} {' '.join(map(str, s))} {a} {b} {c}" for s, a, b, c in cases]
    got = driver(lines)
    for (s, a, b, c), g in zip(cases, got):
        if c == 0:
            assert g == "ValueError"
        else:
            assert g == py_tuple(tuple(s)[a:b:c]), (s, a, b, c)


def test_runtime_header_is_self_contained(tmp_path):
    needs_cxx()
    src = tmp_path / "only.cpp"
    src.write_text('#include "formula/runtime.h"\nint main() { return 0; }\n')
    rc, out = compile_cpp(["-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                           f"-I{os.path.join(ROOT, 'csrc')}", str(src)])
    assert rc == 0, out
