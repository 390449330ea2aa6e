"""The example package, installed from its wheel into an environment holding transgrad's wheel
and no checkout: its compiled ops, the same ops on the reference engine, and the JIT path on
the same formula file all pass gradcheck/gradgradcheck and mix with transgrad's own ops."""

import formula_example
import numpy as np
import pytest
import transgrad as tg
import transgrad.extension
import transgrad.reference as ref


def engines():
    jit = transgrad.extension.load("formula_example_jit", [formula_example.FORMULAS])
    return {"package": (tg, formula_example), "reference": (ref, formula_example.reference()),
            "jit": (tg, jit)}


@pytest.fixture(scope="module")
def all_engines():
    return engines()


@pytest.mark.parametrize("which", ["package", "reference", "jit"])
def test_ops(all_engines, which):
    eng, mod = all_engines[which]
    a = np.random.default_rng(0).uniform(-2, 2, size=(3, 5))
    x = eng.tensor(a, requires_grad=True)
    np.testing.assert_allclose(mod.softsign(x).detach().numpy(), a / (1 + np.abs(a)), rtol=1e-14)
    np.testing.assert_allclose(mod.scaled_square(x, 2).detach().numpy(), a * a * 3, rtol=1e-14)
    for fn in (mod.softsign, lambda t: mod.scaled_square(t, 4), lambda t: mod.scaled_square(t, -2)):
        assert eng.autograd.gradcheck(fn, (x,))
        assert eng.autograd.gradgradcheck(fn, (x,))
    # one graph with transgrad's own ops, double backward through both
    y = eng.tanh(mod.softsign(x)).sum()
    (g,) = eng.autograd.grad(y, x, create_graph=True)
    s = a / (1 + np.abs(a))
    np.testing.assert_allclose(g.detach().numpy(), (1 - np.tanh(s) ** 2) / (1 + np.abs(a)) ** 2,
                               rtol=1e-12)
    assert eng.autograd.gradgradcheck(lambda t: eng.tanh(mod.softsign(t)), (x,))


def test_the_package_was_built_against_this_transgrad():
    assert formula_example._ops.__transgrad_version__ == tg._C.__version__


def test_the_ops_are_in_their_namespace():
    assert tg.ops.formula_example.softsign is formula_example.softsign
    assert tg.ops.tanh is not None and not hasattr(tg.ops.formula_example, "tanh")
