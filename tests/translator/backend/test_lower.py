"""Lowering keeps Python semantics, and what the back end cannot express is a T4xx diagnostic
at the formula's line (never a C++ compiler error)."""

import textwrap

import pytest

from translator import ir
from translator.backend import load_modules, translate
from translator.diagnostics import TranslatorError

HEADER = "import math\n\nfrom transgrad.lang import Dims, Optional, Shape, Tensor, formula, " \
         "helper, kernel, ops\n\n\n"

NEG = """
@formula
def neg(x: Tensor) -> Tensor:
    result = kernel.neg(x)

    def backward(grad):
        return -grad

    return result, backward
"""


def module(tmp_path, body, name="m"):
    path = tmp_path / f"{name}.py"
    path.write_text(HEADER + textwrap.dedent(body) + NEG)
    return load_modules([str(path)], str(tmp_path))


def lower(tmp_path, body):
    return module(tmp_path, body)[0].lowered  # the front end's (Note [One analysis])


def cpp(tmp_path, body):
    return translate(module(tmp_path, body))[1]["m.cpp"]


def errors(tmp_path, body):
    with pytest.raises(TranslatorError) as e:
        translate(module(tmp_path, body))
    return e.value.diagnostics


def line_of(body, needle):
    text = HEADER + textwrap.dedent(body)
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


SEMANTICS = """
@helper
def arith(a: int, b: int, s: Shape) -> int:
    q = a // b
    r = a % b
    f = a / b
    p = a ** 2
    head = s[-1]
    tail = s[1:-1:2]
    return q + r + int(f) + p + head + len(tail)
"""


def test_python_operators_are_explicit_in_the_ir(tmp_path):
    (h,) = lower(tmp_path, SEMANTICS).helpers
    values = {s.targets[0]: s.value for s in h.body if isinstance(s, ir.Assign)}
    assert (values["q"].op, values["q"].type) == ("floordiv", ir.INT)
    assert (values["r"].op, values["r"].type) == ("mod", ir.INT)
    assert (values["f"].op, values["f"].type) == ("truediv", ir.FLOAT)
    assert (values["p"].op, values["p"].type) == ("pow", ir.INT)
    assert isinstance(values["head"], ir.Index) and values["head"].index.value == -1
    tail = values["tail"]
    assert isinstance(tail, ir.Slice) and tail.type == ir.SHAPE
    assert (tail.start.value, tail.stop.value, tail.step.value) == (1, -1, 2)


def test_python_operators_use_runtime_helpers(tmp_path):
    text = cpp(tmp_path, SEMANTICS)
    for snippet in ("int64_t q = py::floordiv(a, b);", "int64_t r = py::mod(a, b);",
                    "double f = py::truediv(a, b);", "int64_t p = py::pow(a, 2);",
                    "int64_t head = py::index(s, -1);", "Shape tail = py::slice(s, 1, -1, 2);"):
        assert snippet in text


def test_and_or_short_circuit_and_none_narrowing(tmp_path):
    text = cpp(tmp_path, """
    @helper
    def pick(dims: Optional[Dims], n: int) -> int:
        return dims[0] if dims is not None and len(dims) > 0 else n
    """)
    assert "dims.has_value() && py::len(*dims) > 0 ? py::index(*dims, 0) : n" in text


@pytest.mark.parametrize("body,needle,code", [
    ("""
    @helper
    def f(a: int, k: int) -> int:
        return a ** k
    """, "return a ** k", "T408"),
    ("""
    @helper
    def f(a: int) -> int:
        n = 1
        n = (1, 2)
        return a
    """, "n = (1, 2)", "T405"),
    ("""
    @formula
    def g(x: Tensor) -> Tensor:
        return ops.no_such_op(x)
    """, "ops.no_such_op", "T403"),
    ("""
    @helper
    def f(a: int, b: float) -> int:
        return a * b
    """, "return a * b", "T402"),
    ("""
    @helper
    def f(a: int) -> int:
        if a > 0:
            n = 1
        return n
    """, "return n", "T406"),
    ("""
    @helper
    def f(a: int) -> int:
        if a > 0:
            return 1
    """, "def f", "T410"),
    ("""
    @formula
    def g(x: Tensor) -> Tensor:
        return ops.neg(x, 1)
    """, "ops.neg(x, 1)", "T404"),
    ("""
    @formula
    def g(x: Tensor) -> Tensor:
        return x * 2.0
    """, "return x * 2.0", "T411"),
    ("""
    @formula
    def g(x: Tensor) -> Tensor:
        def backward(grad):
            return grad

        return x, backward
    """, "def g", "T412"),
    ("""
    @helper
    def f(s: Shape) -> int:
        return s[0:2][0] + s["a"]
    """, "return s[0:2]", "T402"),
])
def test_inexpressible_construct_is_a_t4xx_at_its_line(tmp_path, body, needle, code):
    (d,) = errors(tmp_path, body)
    assert d.code == code, d.render()
    assert d.loc.line == line_of(body, needle), d.render()
    assert d.loc.path == "m.py"
    assert d.hint


def test_one_line_suites_and_early_returns(tmp_path):
    text = cpp(tmp_path, """
    @helper
    def clamp_dim(d: int, n: int) -> int:
        if d < 0: return d + n
        return d
    """)
    assert "if (d < 0) {" in text and "return d + n;" in text


def test_line_wrapping_only_moves_whitespace():
    from translator.cpp_wrap import wrap_line

    line = ("    Tensor d = !w.defined() ? 1.0 - t - ops::sigmoid(-x) : 1.0 - t - (1.0 + (w - 1.0)"
            " * t) * ops::sigmoid(-x, f(\"a, b\", 2), g(3, 4));")
    out = wrap_line(line, 60)
    assert all(len(ln) <= 60 for ln in out[1:])
    assert "".join(out).replace(" ", "") == line.replace(" ", "")


def test_output_assigned_on_one_path_only_is_rejected(tmp_path):
    body = """
    @formula
    def g(x: Tensor, flag: bool) -> Tensor:
        if flag:
            result = kernel.exp(x)

        def backward(grad):
            return grad

        return result, backward
    """
    codes = {d.code for d in errors(tmp_path, body)}
    assert codes & {"T406", "T412"}, codes


def test_metadata_only_optional_tensor_saves_shape_and_defined(tmp_path):
    text = cpp(tmp_path, """
    @formula
    def g(x: Tensor, bias: Optional[Tensor] = None) -> Tensor:
        result = kernel.neg(x)

        def backward(grad):
            return -grad, None if bias is None else ops.neg(grad)

        return result, backward
    """)
    assert "bool bias_defined_ = false;" in text
    assert "node->bias_defined_ = bias.defined();" in text
    assert "SavedVariable bias_" not in text


def test_is_none_on_a_plain_tensor_capture_compiles_to_its_defined_flag(tmp_path):
    text = cpp(tmp_path, """
    @formula
    def g(x: Tensor, y: Tensor) -> Tensor:
        result = kernel.neg(x)

        def backward(grad):
            return -grad, None if y is None else -grad

        return result, backward
    """)
    assert "bool y_defined_ = false;" in text and "!y_defined_ ?" in text


def test_backward_rebinding_a_captured_name_is_rejected(tmp_path):
    body = """
    @formula
    def g(x: Tensor) -> Tensor:
        result = kernel.neg(x)

        def backward(grad):
            y = -x
            x = -grad
            return x + y

        return result, backward
    """
    diags = errors(tmp_path, body)
    assert [d.code for d in diags] == ["T405"], [d.render() for d in diags]
    assert diags[0].loc.line == line_of(body, "x = -grad")


def test_every_error_of_a_formula_is_reported_once(tmp_path):
    body = """
    @helper
    def f(a: int, k: int) -> int:
        p = a ** k
        q = p + 1
        r = (1, 2) * 1.5
        return q + a
    """
    diags = errors(tmp_path, body)
    assert [(d.code, d.loc.line) for d in diags] == [
        ("T408", line_of(body, "p = a ** k")), ("T402", line_of(body, "r = (1, 2)"))]


def test_lowering_keeps_a_refused_statement_in_place(tmp_path):
    # Note [Total lowering]: the refused statements stay in the IR, in order, each carrying
    # its T4xx (None for one that only reads a poisoned name); the diagnostics are read off
    # the IR, so lowering a module and collecting its refusals is the whole T4xx report
    from translator.source.lower import lower_program, refusals

    body = """
    @helper
    def f(a: int, k: int, s: Shape) -> int:
        p = a ** k
        q = p + 1
        if len(s) > 0:
            r = (1, 2) * 1.5
            t = 2
        return a
    """
    (m,), diags = lower_program(module(tmp_path, body))
    (f,) = m.helpers
    top = [type(s).__name__ for s in f.body]
    assert top == ["Refused", "Refused", "Declare", "If", "Return"], top
    first, second = f.body[0], f.body[1]
    assert isinstance(first, ir.Refused) and first.assigns == ("p",)
    assert first.diagnostic is not None and first.diagnostic.code == "T408"
    assert isinstance(second, ir.Refused) and second.diagnostic is None
    branch = f.body[3]
    assert isinstance(branch, ir.If)
    assert [type(s).__name__ for s in branch.then] == ["Refused", "Assign"]
    assert [(d.code, d.loc.line) for d in refusals(m)] == [(d.code, d.loc.line) for d in diags]
    assert [(d.code, d.loc.line) for d in diags] == [
        ("T408", line_of(body, "p = a ** k")), ("T402", line_of(body, "r = (1, 2)"))]


def test_a_function_refused_as_a_whole_keeps_what_was_lowered(tmp_path):
    # a formula refused for its outputs (T412) still carries its forward's refusals
    body = """
    @formula
    def bad(x: Tensor, k: int) -> Tensor:
        p = k ** k
        result = k

        def backward(grad):
            return grad

        return result, backward
    """
    from translator.source.lower import lower_program

    (m,), diags = lower_program(module(tmp_path, body))
    assert [f.name for f in m.functions] == ["neg"]
    (whole,) = m.refused
    assert whole.diagnostic is not None and whole.diagnostic.code == "T412"
    assert [type(s).__name__ for s in whole.body] == ["Refused", "Assign"]
    assert sorted(d.code for d in diags) == ["T408", "T412"]


def test_a_module_lowers_alone_against_the_signature_table():
    # Note [Signatures as data]: lowering reads of the other modules only a table of plain
    # data, so each shipped module lowered alone against it (the table pickled and read back,
    # as a build would ship it) gives the IR and diagnostics of lowering the whole program
    import glob
    import os
    import pickle

    from translator.source.lower import lower_module, lower_program, refusals
    from translator.source.lower_env import Signatures

    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    paths = sorted(p for p in glob.glob(os.path.join(root, "formulas", "*.py"))
                   if not p.endswith("__init__.py"))
    modules = load_modules(paths, root)
    together, diags = lower_program(modules)
    assert diags == []
    table = pickle.loads(pickle.dumps(Signatures.of(modules)))
    assert "mul" in table.ops and table.ops["mul"].returns == ir.TENSOR
    for mod, expected in zip(modules, together):
        alone = lower_module(mod, table)
        assert alone == expected, mod.path
        assert refusals(alone) == []
