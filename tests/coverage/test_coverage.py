"""``python -m transgrad.coverage``: the classification of entries, and the checks against torch
on both engines (the torch cases skip when torch is not installed)."""

import sys

import pytest
from transgrad import coverage
from transgrad.coverage import TWINS, check_twin, classify


def test_out_of_scope_needs_no_torch(ref):
    assert classify("_foreach_norm.Scalar", [("reference", ref)], None).status == "out of scope"
    row = classify("cudnn_convolution", [("reference", ref)], None)
    assert (row.status, row.detail) == ("out of scope", "backend-specific")


def test_unmapped_entries_say_why(ref):
    engines = [("reference", ref)]
    assert classify("embedding_renorm_", engines, None).detail.startswith("in-place variant")
    assert classify("uniform_", engines, None).detail.startswith("random: ")
    assert classify("poisson", engines, None).detail.startswith("random: ")
    assert classify("squeeze_.dim", engines, None).detail.startswith("in-place change of a")
    assert classify("tanh_backward", engines, None).detail.startswith("a backward op")
    assert classify("no_such_op", engines, None).detail == "no transgrad function `no_such_op`"


def test_without_torch_the_tool_says_so(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)  # makes ``import torch`` fail
    assert coverage.main(["--only", "sin"]) == 2
    assert "needs torch" in capsys.readouterr().err


def test_every_twin_names_an_entry_of_torchs_table():
    pytest.importorskip("torch")
    names = set(coverage.entry_names(coverage.derivatives_yaml()))
    assert sorted(set(TWINS) - names) == []


@pytest.mark.parametrize("entry", ["sin", "sum.dim_IntList", "maximum", "matmul", "max.dim"])
def test_entries_verified_on_both_engines(engine, entry):
    torch = pytest.importorskip("torch")
    assert check_twin(entry, TWINS[entry], engine, torch) is None


@pytest.mark.parametrize("entry", ["fill_.Scalar", "fill_.Tensor", "zero_", "ge_.Tensor",
                                   "lt_.Scalar", "polygamma_", "index_copy"])
def test_in_place_entries_verified_on_both_engines(engine, entry):
    """In place on a non-leaf: the value, and the zero gradient torch gives the overwritten
    input (fill_, zero_, comparisons) or the formula's (polygamma_)."""
    torch = pytest.importorskip("torch")
    assert TWINS[entry].inplace or entry == "index_copy"
    assert check_twin(entry, TWINS[entry], engine, torch) is None


def test_torch_without_a_derivative_is_checked_by_value(engine):
    """acosh_ has no derivative in torch's table (not_implemented): the value is the check."""
    torch = pytest.importorskip("torch")
    notes: list = []
    assert check_twin("acosh_", TWINS["acosh_"], engine, torch, notes) is None
    assert notes == ["torch has no derivative (value only)"]


def test_eq_in_place_is_not_taken_for_quantized():
    from transgrad.translator.import_yaml import out_of_scope

    assert out_of_scope("eq_.Tensor") is None
    assert out_of_scope("q_per_channel_scales") == "quantized"


@pytest.fixture
def torch_sin_twisted(monkeypatch):
    """Replace torch.sin (the oracle) by a function of the given value and derivatives."""
    torch = pytest.importorskip("torch")
    real_sin, real_cos = torch.sin, torch.cos

    def twist(kind):
        def fake(x):
            d = x - x.detach()  # value 0, derivative 1, second derivative 0
            if kind == "value":
                return real_cos(x)
            if kind == "vjp":  # right value, derivative 2
                return real_sin(x).detach() + 2.0 * d
            return real_sin(x).detach() + real_cos(x).detach() * d  # right VJP, no second order

        monkeypatch.setattr(torch, "sin", fake)
        return torch

    return twist


@pytest.mark.parametrize("kind, label", [("value", "value"), ("vjp", "VJP["),
                                         ("vjp2", "VJP-of-VJP")])
def test_a_wrong_answer_is_caught(engine, torch_sin_twisted, kind, label):
    diff = check_twin("sin", TWINS["sin"], engine, torch_sin_twisted(kind))
    assert diff is not None and f"case 0: {label}" in diff, diff


def test_classify_reports_counts_of_cases(engine):
    torch = pytest.importorskip("torch")
    row = classify("exp", [("e", engine)], torch)
    assert row.status == "verified" and row.detail == "3 case(s) on 1 engine(s)"


def test_main_prints_a_summary(capsys, tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "cov.json"
    assert coverage.main(["--engine", "reference", "--only", "sin", "_foreach_mm", "-q",
                          "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "verified: 1" in text and "out of scope: 1" in text
    assert '"verified": 1' in out.read_text()


@pytest.mark.parametrize("entry", sorted(TWINS))
def test_every_case_of_the_table_runs_on_torch(entry):
    """The table is right for the oracle: each case runs on torch (value, VJP, VJP-of-VJP), so a
    transgrad failure on it is transgrad's."""
    torch = pytest.importorskip("torch")
    twin = TWINS[entry]
    for i, c in enumerate(twin.cases):
        args, kwargs = coverage._arrays(c, coverage._rng(entry, i), twin.domain)
        theirs = twin.call if twin.oracle is None else coverage._bound(twin.oracle, torch)
        coverage._run(coverage._Lib(torch, True), theirs, args, kwargs, i, twin.inplace)


def test_summary_counts_first_and_second_order_apart(capsys):
    """isnan is verified by value only (torch has no gradient), sin with VJP and VJP-of-VJP:
    the strict line counts sin alone (Note [Strict count])."""
    pytest.importorskip("torch")
    assert coverage.main(["--engine", "reference", "--only", "sin", "isnan", "-q"]) == 0
    lines = capsys.readouterr().out.splitlines()
    strict = [ln for ln in lines if ln.startswith("verified first and second order (")]
    assert [ln.split()[-1] for ln in strict] == ["1"]
    assert any("verified: 2 " in ln and "verified first and second order: 1 " in ln
               for ln in lines)


def test_a_value_only_row_is_not_second_order(engine):
    torch = pytest.importorskip("torch")
    assert classify("sin", [("e", engine)], torch).second_order
    assert not classify("acosh_", [("e", engine)], torch).second_order
    assert not classify("isnan", [("e", engine)], torch).second_order


@pytest.mark.parametrize("entry", ["reflection_pad2d", "upsample_bilinear2d", "col2im",
                                   "binary_cross_entropy", "_native_batch_norm_legit.no_stats",
                                   "slow_conv_dilated2d", "_pack_padded_sequence"])
def test_functional_entries_verified_to_second_order(engine, entry):
    """The layers' functional API twinned to the ATen entries torch dispatches to."""
    torch = pytest.importorskip("torch")
    row = classify(entry, [("e", engine)], torch)
    assert (row.status, row.second_order) == ("verified", True), row.detail


def test_an_oracle_calls_the_entrys_own_op():
    """conv2d records ``convolution`` in torch; the oracle records the algorithm's own node, so
    the entry's formula (to second order) is what the twin is checked against."""
    torch = pytest.importorskip("torch")
    twin = TWINS["_slow_conv2d_forward"]
    args, kwargs = coverage._arrays(twin.cases[0], coverage._rng("_slow_conv2d_forward", 0))
    targs, tkwargs, _ = coverage._Lib(torch, True).build(args, kwargs)
    assert twin.oracle is not None
    out = twin.oracle(torch, *targs, **tkwargs)
    assert out.grad_fn.name() == "SlowConv2DBackward0"
