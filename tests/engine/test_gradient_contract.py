"""The engine's own conversions of a gradient (sum down to the input's shape, cast to its dtype)
are differentiable nodes of the engine, not formulas: checked on both engines, to second order."""

import numpy as np
import pytest


def test_broadcast_grad_is_summed_down_and_double_differentiable(engine):
    tg = engine
    x = tg.tensor([[0.5], [1.5]], dtype=tg.float64, requires_grad=True)   # (2, 1)
    w = tg.tensor([1.0, 2.0, 3.0], dtype=tg.float64, requires_grad=True)  # (3,)
    y = (x * x * w).sum()                                                  # broadcast to (2, 3)
    gx, gw = tg.autograd.grad(y, (x, w), create_graph=True)
    np.testing.assert_allclose(np.asarray(gx.detach()), 2 * np.array([[0.5], [1.5]]) * 6.0)
    np.testing.assert_allclose(np.asarray(gw.detach()), np.full(3, 0.25 + 2.25))
    (ggx,) = tg.autograd.grad(gx.sum(), x)
    np.testing.assert_allclose(np.asarray(ggx), np.full((2, 1), 12.0))
    assert tg.autograd.gradgradcheck(lambda a, b: (a * a * b).sum(), (x, w))


def test_cast_grad_is_recorded_under_create_graph(engine):
    tg = engine
    x = tg.tensor([1.0, -2.0], dtype=tg.float32, requires_grad=True)
    y = (x.double() ** 3).sum()
    (g,) = tg.autograd.grad(y, x, create_graph=True)
    assert g.dtype == tg.float32
    np.testing.assert_allclose(np.asarray(g.detach()), [3.0, 12.0])
    (gg,) = tg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(np.asarray(gg), [6.0, -12.0])


def test_reference_engine_nodes_are_its_own(ref):
    from transgrad.reference.grad_ops import grad_cast, grad_sum_to

    g = ref.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=ref.float64, requires_grad=True)
    s = grad_sum_to(g, (1, 2))
    assert s.grad_fn.name() == "SumBackward1"
    np.testing.assert_allclose(np.asarray(s.detach()), [[4.0, 6.0]])
    c = grad_cast(g, np.dtype("float32"))
    assert c.grad_fn.name() == "ToCopyBackward0" and c.dtype == np.float32
    (back,) = ref.autograd.grad(s.sum() + c.sum(), g)
    np.testing.assert_allclose(np.asarray(back), np.full((2, 2), 2.0))
    with ref.no_grad():
        assert grad_sum_to(g, (2,)).grad_fn is None


def test_the_reference_engine_runs_formulas():
    import transgrad.reference  # noqa: F401  (registers itself as the executor)
    from transgrad import lang

    assert type(lang.executor()).__module__ == "transgrad.reference.executor"
    with pytest.raises(AttributeError, match="no kernel 'no_such_kernel'"):
        _ = lang.kernel.no_such_kernel


def test_formula_options_are_the_dataclass_fields():
    from transgrad import lang

    with pytest.raises(TypeError, match="inplace_saves_copy"):
        lang.formula(bogus=True)
    opts = lang.formula_options(hidden_outputs=["a"], once_differentiable=1)
    assert opts == lang.FormulaOptions(hidden_outputs=("a",), once_differentiable=True)
