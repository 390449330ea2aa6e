"""In-place verdicts read from the build's facts, without the translator (Note [Verdicts as
data] in transgrad/_api/inplace_verdicts.py)."""

import subprocess
import sys
import textwrap
import types

import pytest
from transgrad._api.inplace_verdicts import Verdict, VerdictTable, shipped_facts


def test_a_shipped_fact_is_the_verdict():
    table = VerdictTable({"exp": ("safe", "reads only the output"),
                          "sin": ("unsafe", "the backward reads `x`")})
    assert table("exp") == Verdict("exp", "safe", "reads only the output")
    v = table("sin")
    assert not v.allowed and not v.needs_copy and "reads `x`" in v.reason
    assert table("exp") is table("exp")  # cached


def test_kinds_mean_what_the_translator_means():
    translator = pytest.importorskip("transgrad.translator.inplace")
    for kind in ("none", "composite", "safe", "copy", "unsafe"):
        ours, theirs = Verdict("f", kind, ""), translator.InplaceVerdict("f", kind, "")
        assert (ours.allowed, ours.needs_copy) == (theirs.allowed, theirs.needs_copy)


def test_an_unknown_kind_is_an_error():
    with pytest.raises(ValueError, match="unknown in-place kind 'maybe'"):
        VerdictTable({"exp": ("maybe", "")})("exp")


def test_without_facts_the_translator_decides():
    pytest.importorskip("libcst")
    table = VerdictTable(None)
    assert table("exp").kind == "safe"
    assert table("sin").kind == "unsafe"
    assert table("mul").kind == "copy"
    assert table("no_such_formula") is None


def test_shipped_facts_reads_the_module(monkeypatch):
    fake = types.ModuleType("transgrad._fake_facts")
    fake.INPLACE = {"exp": ("safe", "r")}
    monkeypatch.setitem(sys.modules, "transgrad._fake_facts", fake)
    assert shipped_facts("transgrad._fake_facts") == {"exp": ("safe", "r")}
    assert shipped_facts("transgrad._no_such_facts") is None


# A fresh interpreter: the shipped facts (a fake with the translator's verdicts) are in place
# before ``import transgrad``; an in-place op then must not import libcst.
_SCRIPT = textwrap.dedent("""
    import sys, types
    facts = types.ModuleType("transgrad._formula_facts")
    facts.INPLACE = {"exp": ("safe", "reads only the output"),
                     "sin": ("unsafe", "the backward reads `x`"),
                     "mul": ("copy", "saves a copy")}
    sys.modules["transgrad._formula_facts"] = facts
    import transgrad as tg
    x = tg.ones(3, requires_grad=True) * 1
    x.exp_()
    x.mul_(2.0)
    try:
        x.sin_()
    except RuntimeError as e:
        assert "the backward reads `x`" in str(e), e
    else:
        raise AssertionError("sin_ ran in place while recording")
    x.sum().backward()
    print("libcst" in sys.modules)
""")


def test_first_inplace_op_runs_without_libcst(compiled):
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False", out.stderr


# Note [Shipped formulas run without the translator]: with the build's facts installed, the
# reference engine runs shipped formulas (forward, backward, double backward) without libcst.
_REFERENCE_SCRIPT = """
import sys
import transgrad.reference as tg
x = tg.randn(4, 4, dtype=tg.float64, requires_grad=True)
y = (x @ x).tanh().sum()
(g,) = tg.autograd.grad(y, [x], create_graph=True)
g.sum().backward()
assert x.grad is not None
print("libcst" in sys.modules)
"""


def test_reference_engine_runs_shipped_formulas_without_libcst():
    pytest.importorskip("transgrad._formula_facts")
    out = subprocess.run([sys.executable, "-c", _REFERENCE_SCRIPT], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "False"


def test_plans_from_facts_equal_the_translators_models():
    """The PLANS the build wrote are what the front end says of each shipped formula now."""
    pytest.importorskip("libcst")
    plans = pytest.importorskip("transgrad._formula_facts").PLANS
    from transgrad import lang
    from transgrad.translator.frontend import formula_model

    lang.load_builtin_formulas()
    assert set(plans) == set(lang.REGISTRY)
    for name in plans:
        m = formula_model(lang.REGISTRY[name].fn)
        captures = m.backward.captures if m.backward is not None else ()
        line, outputs, metadata_only, bound_at = plans[name]
        assert line == m.loc.line and outputs == (tuple(m.outputs) or None)
        assert set(metadata_only) == {c.name for c in captures if c.metadata_only}
        assert dict(bound_at) == {c.name: f"{c.bound_at.path}:{c.bound_at.line}"
                                  for c in captures}
