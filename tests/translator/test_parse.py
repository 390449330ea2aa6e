"""parse_module: structure of formulas, helpers and constants, with repo-relative locations."""

import libcst as cst
import pytest

from translator.diagnostics import TranslatorError
from translator.source.parse import annotation_spelling, parse_module

SOURCE = '''"""Module docstring."""
import math
from transgrad.lang import formula, helper, samples, T, Tensor, kernel, ops, Optional, Dims

EPS = 1e-5
HALF_PI = math.pi / 2
N: int = 3
FLAG = not True
NAME = "x"


@samples(T(3))
@formula
def sin(x: Tensor) -> Tensor:
    """Sine."""
    result = kernel.sin(x)
    def backward(grad):
        return grad * ops.cos(x)
    return result, backward


@formula(differentiable_outputs=("values",), hidden_outputs=("extra",), once_differentiable=True)
def many(x: Tensor, dim: int = -1, keepdim: bool = False, dims: Optional[Dims] = None,
         w: "Optional[Tensor]" = None, s: Tensor | None = None,
         k: float = EPS * 2) -> tuple[Tensor, Tensor, Tensor]:
    values, indices = kernel.max_dim(x, dim, keepdim)
    extra = kernel.exp(x)
    def backward(grad, grad_extra):
        return grad
    tail = 1
    return (values, indices, extra), backward


@formula
def softplus(x: Tensor, beta: float = 1.0) -> Tensor:
    y = x * beta
    return ops.log1p(ops.exp(y)) / beta


@helper
def twice(n: int) -> int:
    return 2 * n
'''


@pytest.fixture
def mod(tmp_path):
    (tmp_path / "formulas").mkdir()
    path = tmp_path / "formulas" / "sample.py"
    path.write_text(SOURCE)
    return parse_module(str(path), str(tmp_path))


def test_module_identity_and_paths(mod):
    assert mod.path == "formulas/sample.py" and mod.name == "sample"
    assert [f.name for f in mod.formulas] == ["sin", "many", "softplus"]
    assert [h.name for h in mod.helpers] == ["twice"]
    assert all(f.loc.path == "formulas/sample.py" for f in mod.formulas)


def test_constants(mod):
    consts = {c.name: c.value for c in mod.constants}
    assert consts == {"EPS": 1e-5, "HALF_PI": pytest.approx(1.5707963), "N": 3, "FLAG": False}
    assert next(c for c in mod.constants if c.name == "N").loc.line == 7


def test_simple_formula(mod):
    sin = mod.formulas[0]
    assert sin.loc.line == 14 and sin.loc.col == 1  # the `def`, not the decorators
    assert [(p.name, p.type) for p in sin.params] == [("x", "Tensor")]
    assert sin.params[0].loc.line == 14 and sin.params[0].loc.col == 9
    assert sin.returns == "Tensor" and sin.doc == "Sine."
    assert not sin.composite and sin.outputs == ("result",)
    assert sin.backward.params == ("grad",) and sin.backward.loc.line == 17
    assert sin.backward.captures == ()  # filled by collect_captures
    assert len(sin.forward) == 1  # docstring, backward, return excluded
    assert isinstance(sin.backward.body, cst.IndentedBlock)
    assert mod.loc_of(sin.forward[0]).line == 16


def test_params_types_defaults_options(mod):
    many = mod.formulas[1]
    got = [(p.name, p.type, p.default_value) for p in many.params]
    assert got == [
        ("x", "Tensor", None),
        ("dim", "int", -1),
        ("keepdim", "bool", False),
        ("dims", "Optional[Dims]", None),
        ("w", "Optional[Tensor]", None),
        ("s", "Optional[Tensor]", None),
        ("k", "float", 2e-5),
    ]
    assert many.params[0].default is None and many.params[1].default is not None
    assert many.returns == "(Tensor, Tensor, Tensor)"
    o = many.options
    assert o.differentiable_outputs == ("values",) and o.hidden_outputs == ("extra",)
    assert o.once_differentiable and not o.materialize_grads
    assert many.outputs == ("values", "indices", "extra")
    assert many.backward.params == ("grad", "grad_extra")
    # forward: the unpacking, `extra = ...` and `tail = 1` (after backward), not the return
    assert len(many.forward) == 3


def test_composite(mod):
    sp = mod.formulas[2]
    assert sp.composite and sp.backward is None and sp.outputs == ()
    assert isinstance(sp.result, cst.BinaryOperation)
    assert len(sp.forward) == 1
    assert sp.params[1].default_value == 1.0


def test_helper(mod):
    h = mod.helpers[0]
    assert h.returns == "int" and [(p.name, p.type) for p in h.params] == [("n", "int")]


@pytest.mark.parametrize(
    "text, spelled",
    [
        ("Tensor", "Tensor"),
        ("Optional[Tensor]", "Optional[Tensor]"),
        ("Tensor | None", "Optional[Tensor]"),
        ("None | int", "Optional[int]"),
        ("Union[float, None]", "Optional[float]"),
        ("Sequence[Tensor]", "Sequence[Tensor]"),
        ("'Shape'", "Shape"),
        ("Tuple[Tensor, Tensor]", "(Tensor, Tensor)"),
        ("tuple[Tensor, Tensor]", "(Tensor, Tensor)"),
        ("Tuple[int, ...]", "tuple[int, ...]"),
        ("lang.Tensor", "lang.Tensor"),
    ],
)
def test_annotation_spelling(text, spelled):
    assert annotation_spelling(cst.parse_expression(text)) == spelled


def test_syntax_error_is_a_diagnostic(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("def f(:\n    pass\n")
    with pytest.raises(TranslatorError) as e:
        parse_module(str(path), str(tmp_path))
    (d,) = e.value.diagnostics
    assert d.code == "T100" and d.loc.path == "bad.py" and d.loc.line == 1


def test_malformed_formula_is_parsed_leniently(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(
        "from transgrad.lang import formula, Tensor\n"
        "@formula\ndef f(x: Tensor) -> Tensor:\n"
        "    def backward(grad):\n        return grad\n    return x\n"
    )
    (f,) = parse_module(str(path), str(tmp_path)).formulas
    assert f.backward is not None and f.outputs == ()
