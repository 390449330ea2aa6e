"""The derivatives.yaml importer (translator/import_yaml.py and its parser and rewriter).

Runs without torch: the input is ``data/derivatives_excerpt.yaml``, a dozen entries in the format
of torch's table. The round trip: import -> the module passes ``python -m translator check`` ->
it runs on the reference engine -> gradcheck and gradgradcheck of every imported formula on its
samples, and values against numpy. Entries the importer must refuse are listed with the reason.
"""

import importlib.util
import math
import os
import sys

import numpy as np
import pytest

from translator.cli import main as cli_main
from translator.cpp_expr_parse import (
    Binary,
    Call,
    CppSyntaxError,
    Member,
    Name,
    Num,
    Ternary,
    Unary,
    parse_cpp_expr,
)
from translator.import_rewrite import Param, Scope, Untranslatable, adapt_args, rewrite_expr
from translator.import_yaml import (
    import_entries,
    load_yaml,
    out_of_scope,
    read_helpers,
    render_report,
)

pytest.importorskip("yaml")

EXCERPT = os.path.join(os.path.dirname(__file__), "data", "derivatives_excerpt.yaml")
PREFIX = "imported_"  # keeps the imported formulas apart from the shipped ones in REGISTRY

TRANSLATED = {
    "sin", "exp", "log1p", "pow.Tensor_Scalar", "add.Tensor", "maximum", "sum.dim_IntList",
    "logsumexp", "where.self", "transpose.int", "lerp.Scalar", "max.dim",
}
REFUSED = {
    "atan2": "one formula for several inputs (self, other)",
    "sin_": "writes into an argument (in-place or out= variant)",
    "aminmax": "returns (Tensor min, Tensor max) with 2 differentiable outputs",
    "_sparse_sum.dim": "out of scope: sparse",
    "i0": "self: no translation for special_i1(tensor)",
    "div.Tensor_mode": "parameter 'rounding_mode' of type str? has no formula-language type",
    "roll": "self: cannot parse",
    "im2col": "self: no torch signature of col2im to pass its arguments by name",
}


# -- the parser -------------------------------------------------------------------------------

def test_parse_precedence_and_postfix():
    e = parse_cpp_expr("-grad * self.cos().conj() + 2")
    assert e == Binary("+", Binary("*", Unary("-", Name("grad")),
                                   Call(Member(Call(Member(Name("self"), "cos"), ()), "conj"), ())),
                       Num("2"))


def test_parse_ternary_is_right_associative_and_lowest():
    e = parse_cpp_expr("a ? b : c ? d : e + f")
    assert e == Ternary(Name("a"), Name("b"), Ternary(Name("c"), Name("d"),
                                                      Binary("+", Name("e"), Name("f"))))


def test_parse_scopes_comments_and_suffixes():
    e = parse_cpp_expr("at::sum(grad, /*keepdim=*/true, 2.0f)")
    assert e == Call(Name("at::sum"), (Name("grad"), Name("true"), Num("2.0")))


def test_parse_error_names_the_column():
    with pytest.raises(CppSyntaxError) as info:
        parse_cpp_expr("f(x, [](int i){return -i;})")
    assert "column" in str(info.value)


# -- the rewriter -----------------------------------------------------------------------------

def _scope(**names):
    ops = {n: (Param("x", True),) for n in ("cos", "sum_to", "pow_scalar", "pow", "zeros_like")}
    return Scope(dict(names, grad="tensor", result="tensor"), {}, {}, ops, {})


@pytest.mark.parametrize("cpp, python", [
    ("grad * self.cos().conj()", "grad * ops.cos(self)"),
    ("handle_r_to_c(self.scalar_type(), grad)", "grad"),
    ("grad.sum_to_size(self.sym_sizes())", "ops.sum_to(grad, self.shape)"),
    ("grad * self.pow(2)", "grad * ops.pow_scalar(self, 2)"),
    ("grad * self.pow(other)", "grad * ops.pow(self, other)"),
    ("keepdim ? grad : -grad", "(grad if keepdim else (-grad))"),
    ("grad * M_PI", "grad * math.pi"),
])
def test_rewrite(cpp, python):
    scope = _scope(self="tensor", other="tensor", keepdim="bool")
    assert rewrite_expr(parse_cpp_expr(cpp), scope).src == python


@pytest.mark.parametrize("cpp, reason", [
    ("grads[0] * self", "reads 'grads'"),
    ("self.cos() ? grad : grad", "a ternary on a tensor condition"),
    ("grad * unknown_thing", "unknown name 'unknown_thing'"),
    ("not_implemented(\"x\")", "torch marks this derivative not implemented"),
    ("grad.div(self, \"trunc\")", "string argument 'trunc'"),
])
def test_rewrite_refuses(cpp, reason):
    with pytest.raises(Untranslatable, match=reason):
        rewrite_expr(parse_cpp_expr(cpp), _scope(self="tensor"))


def test_arguments_are_passed_by_name():
    torch_im2col = [Param("self", True), Param("kernel_size", False), Param("dilation", False),
                    Param("padding", False), Param("stride", False)]
    ours = [Param("x", True), Param("kernel_size", False), Param("stride", False),
            Param("padding", False), Param("dilation", False)]
    assert adapt_args(torch_im2col, ["g", "k", "d", "p", "s"], ours) == ["g", "k", "s", "p", "d"]
    # an argument without a counterpart is refused, never dropped
    assert adapt_args(torch_im2col, ["g", "k", "d", "p", "s"], ours[:4]) is None


# -- the importer -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def imported():
    source, outcomes = import_entries(load_yaml(EXCERPT), prefix=PREFIX)
    return source, {o.entry: o for o in outcomes}


def test_translated_and_refused_entries(imported):
    _, outcomes = imported
    assert {n for n, o in outcomes.items() if o.formula} == TRANSLATED
    for name, reason in REFUSED.items():
        assert outcomes[name].formula is None
        assert outcomes[name].reason.startswith(reason), (name, outcomes[name].reason)


def test_each_formula_names_its_entry(imported):
    source, _ = imported
    assert "# derivatives.yaml: sin(Tensor self) -> Tensor\n" in source
    assert source.count("# derivatives.yaml: ") == len(TRANSLATED)
    assert "def imported_pow_tensor_scalar(self: Tensor, exponent: Scalar) -> Tensor:" in source
    assert ('@formula(differentiable_outputs=(\'values\',))\n'
            "def imported_max_dim(self: Tensor, dim: int, keepdim: bool = False) -> "
            "(Tensor, Tensor):\n    values, indices = kernel.max_dim(self, dim, keepdim)") in source


def test_only_the_helpers_used_are_copied(imported):
    source, _ = imported
    assert "def pow_backward(" in source and "def logsumexp_backward(" in source
    assert "def wrap_dims(" in source  # called by sum_backward: copied with it
    assert "def elu_backward(" not in source


def test_helpers_file_is_a_clean_formula_module():
    path = os.path.join(os.path.dirname(read_helpers.__code__.co_filename), "torch_helpers.py")
    assert cli_main(["check", "-q", path]) == 0


def test_cli_writes_a_module_that_passes_check(tmp_path, capsys):
    out = tmp_path / "out"
    assert cli_main(["import-yaml", EXCERPT, "--out", str(out), "--prefix", PREFIX,
                     "--report"]) == 0
    report = capsys.readouterr().out
    assert "atan2" in report and "not translated: one formula for several inputs" in report
    assert f"{len(TRANSLATED)} of {len(TRANSLATED) + len(REFUSED)} entries translated" in report
    assert cli_main(["check", "-q", str(out / "imported.py")]) == 0


def test_only_selects_entries():
    _, outcomes = import_entries(load_yaml(EXCERPT), only=["sin", "pow"], prefix=PREFIX)
    assert [o.entry for o in outcomes] == ["sin", "pow.Tensor_Scalar"]


def test_a_checker_rejection_is_reported_not_written(monkeypatch):
    from translator import import_yaml

    monkeypatch.setitem(import_yaml.FORWARDS, "sin", "ops.no_such_op(self)")
    source, outcomes = import_entries(load_yaml(EXCERPT), only=["sin"], prefix=PREFIX)
    assert outcomes[0].formula is None and outcomes[0].reason.startswith("translator check:")
    assert "def imported_sin" not in source


def test_report_lists_every_entry(imported):
    _, outcomes = imported
    text = render_report(list(outcomes.values()))
    assert text.splitlines()[-1] == f"{len(TRANSLATED)} of {len(outcomes)} entries translated"


def test_out_of_scope_families():
    assert out_of_scope("_foreach_add.List") == "_foreach"
    assert out_of_scope("to_sparse") == "sparse"
    assert out_of_scope("cudnn_convolution") == "backend-specific"
    assert out_of_scope("_nested_tensor_from_mask") == "nested"
    assert out_of_scope("sin") is None


# -- round trip on the reference engine -------------------------------------------------------

@pytest.fixture(scope="module")
def module(imported, tmp_path_factory):
    source, _ = imported
    path = tmp_path_factory.mktemp("imported") / "imported_excerpt.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("imported_excerpt", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    yield mod
    from transgrad.lang import forget_namespace

    forget_namespace("imported_excerpt")  # leave the registry as it was


def _formula_names():
    return sorted(PREFIX + n.replace(".", "_").lower() for n in TRANSLATED)


@pytest.mark.parametrize("name", _formula_names())
def test_imported_formula_gradchecks(module, ref, name):
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "formulas"))
    try:
        from formula_samples import engine_call
    finally:
        sys.path.pop(0)
    from transgrad.lang import formulas_in

    # a module imported directly is the namespace of its name (Note [Formula namespaces])
    fdef = formulas_in("imported_excerpt")[name]
    assert fdef.module == "imported_excerpt"
    for i in range(len(fdef.samples)):
        call = engine_call(ref, f"imported_excerpt::{name}", i)
        fn, leaves = call.differentiable(), tuple(call.leaves())
        assert ref.autograd.gradcheck(fn, leaves), f"{name} sample {i}"
        assert ref.autograd.gradgradcheck(fn, leaves), f"{name} sample {i}"


def test_imported_values_match_numpy(module, ref):
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0.5, 2.0, (3, 4)), rng.uniform(0.5, 2.0, (4,))
    x, y = ref.tensor(a), ref.tensor(b)
    cases = [
        (module.imported_sin(x), np.sin(a)),
        (module.imported_pow_tensor_scalar(x, 2.5), a ** 2.5),
        (module.imported_add_tensor(x, y, 2.0), a + 2.0 * b),
        (module.imported_logsumexp(x, (1,), True), np.log(np.exp(a).sum(1, keepdims=True))),
        (module.imported_lerp_scalar(x, y, 0.25), a + 0.25 * (b - a)),
        (module.imported_sum_dim_intlist(x, None), np.array(a.sum())),
    ]
    for got, want in cases:
        np.testing.assert_allclose(np.asarray(got.detach().numpy()), want, rtol=1e-12)
    assert math.isclose(float(module.imported_maximum(x, y).sum().item()),
                        float(np.maximum(a, b).sum()), rel_tol=1e-12)


def test_imported_formulas_match_torchs_aten_ops(imported, tmp_path):
    """Value, VJP and VJP-of-VJP of each imported formula against ``torch.ops.aten``'s op of
    the same entry (optional: torch)."""
    torch = pytest.importorskip("torch")
    sys.path.insert(0, os.path.dirname(__file__))
    try:
        from imported_vs_torch import compare_module
    finally:
        sys.path.pop(0)
    source, _ = imported
    path = tmp_path / "imported_vs_torch_excerpt.py"
    path.write_text(source.replace("def imported_", "def vs_torch_"))
    try:
        results = compare_module(str(path), "imported_vs_torch_excerpt", torch)
    finally:
        from transgrad.lang import forget_namespace

        forget_namespace("imported_vs_torch_excerpt")
    assert len(results) == len(TRANSLATED)
    assert {n: d for n, d in results.items() if d is not None} == {}
