"""autograd.functional (vjp, jvp, jacobian, hessian, hvp, vhp) against closed forms."""

import numpy as np
import pytest


def f64(tg, a, requires_grad=False):
    return tg.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def test_jacobian_single_and_tuple(engine):
    tg = engine
    fn = tg.autograd.functional
    a, b = np.array([0.3, -1.2]), np.array([2.0, 0.5])
    J = fn.jacobian(lambda x: x.sin() * 2, f64(tg, a))
    np.testing.assert_allclose(J.detach().numpy(), np.diag(2 * np.cos(a)))
    Jx, Jy = fn.jacobian(lambda x, y: (x * y).sum(), (f64(tg, a), f64(tg, b)))
    np.testing.assert_allclose(Jx.detach().numpy(), b)
    np.testing.assert_allclose(Jy.detach().numpy(), a)
    (J1,), (J2,) = fn.jacobian(lambda x: (x * 3, x.sum()), (f64(tg, a),))
    assert J1.shape == (2, 2) and J2.shape == (2,)


def test_hessian_vjp_jvp_hvp(engine):
    tg = engine
    fn = tg.autograd.functional
    a = np.array([0.5, 2.0, -1.0])
    x = f64(tg, a)
    H = fn.hessian(lambda t: (t ** 3).sum(), x)
    np.testing.assert_allclose(H.detach().numpy(), np.diag(6 * a))
    v = f64(tg, [1.0, 2.0, 3.0])
    out, g = fn.vjp(lambda t: t.exp(), x, v)
    np.testing.assert_allclose(g.detach().numpy(), np.exp(a) * [1, 2, 3])
    assert not out.requires_grad
    out, jv = fn.jvp(lambda t: t * t, x, v)
    np.testing.assert_allclose(jv.detach().numpy(), 2 * a * [1, 2, 3])
    out, hv = fn.hvp(lambda t: (t ** 3).sum(), x, v)
    np.testing.assert_allclose(hv.detach().numpy(), 6 * a * [1, 2, 3])
    _, vh = fn.vhp(lambda t: (t ** 3).sum(), x, v)
    np.testing.assert_allclose(vh.detach().numpy(), hv.detach().numpy())


def test_jacobian_create_graph(engine):
    tg = engine
    x = f64(tg, [0.7], requires_grad=True)
    J = tg.autograd.functional.jacobian(lambda t: t ** 3, x, create_graph=True)
    (g,) = tg.autograd.grad(J.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), [6 * 0.7])


def test_functional_matches_torch(engine):
    torch = pytest.importorskip("torch")
    tg = engine
    a = np.random.default_rng(3).standard_normal((2, 3))

    def f(m):
        return lambda t: (m.tanh(t) @ t.T).sum() if m is torch else (tg.tanh(t) @ t.T).sum()

    H = tg.autograd.functional.hessian(f(tg), f64(tg, a))
    Ht = torch.autograd.functional.hessian(f(torch), torch.tensor(a))
    np.testing.assert_allclose(H.detach().numpy(), Ht.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_functional_is_importable_as_a_module(engine):
    import importlib

    mod = importlib.import_module(engine.autograd.__name__ + ".functional")
    assert mod.jacobian is engine.autograd.functional.jacobian
