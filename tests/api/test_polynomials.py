"""The orthogonal polynomials of transgrad.special (_api/polynomials.py) on both engines: closed
forms, n < 0, dtype, no gradient; torch's values where torch is installed."""

import math

import numpy as np
import pytest

NAMES = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
         "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
         "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
         "laguerre_polynomial_l", "legendre_polynomial_p"]


def _special(tg):
    return tg.special


def test_chebyshev_closed_forms(engine):
    tg = engine
    theta = np.linspace(0.1, 3.0, 7)
    x = tg.tensor(np.cos(theta))
    for n in range(0, 9):
        t = _special(tg).chebyshev_polynomial_t(x, n).numpy()
        u = _special(tg).chebyshev_polynomial_u(x, n).numpy()
        np.testing.assert_allclose(t, np.cos(n * theta), atol=1e-12)
        np.testing.assert_allclose(u, np.sin((n + 1) * theta) / np.sin(theta), atol=1e-11)


def test_low_degrees_by_hand(engine):
    tg = engine
    x = tg.tensor([-1.5, -0.2, 0.0, 0.7, 2.0], dtype=tg.float64)
    a = x.numpy()
    sp = _special(tg)
    cases = {"hermite_polynomial_h": 8 * a**3 - 12 * a, "hermite_polynomial_he": a**3 - 3 * a,
             "legendre_polynomial_p": (5 * a**3 - 3 * a) / 2,
             "laguerre_polynomial_l": (-a**3 + 9 * a**2 - 18 * a + 6) / 6,
             "chebyshev_polynomial_v": 8 * a**3 - 4 * a**2 - 4 * a + 1,
             "chebyshev_polynomial_w": 8 * a**3 + 4 * a**2 - 4 * a - 1,
             "shifted_chebyshev_polynomial_t": 4 * (2 * a - 1)**3 - 3 * (2 * a - 1)}
    for name, want in cases.items():
        np.testing.assert_allclose(getattr(sp, name)(x, 3).numpy(), want, rtol=1e-12,
                                   atol=1e-12, err_msg=name)


@pytest.mark.parametrize("name", NAMES)
def test_negative_degree_is_zero_and_no_gradient(engine, name):
    tg = engine
    x = tg.tensor([0.3, -0.4, 1.2], requires_grad=True)
    n = tg.tensor([-1, 0, -3])
    out = getattr(_special(tg), name)(x, n)
    assert not out.requires_grad
    np.testing.assert_array_equal(out.numpy(), [0.0, 1.0, 0.0])


def test_dtypes_follow_torch(engine):
    tg = engine
    sp = _special(tg)
    x32 = tg.tensor([0.5], dtype=tg.float32)
    assert sp.legendre_polynomial_p(x32, 2).dtype == tg.float32
    assert sp.legendre_polynomial_p(0.5, tg.tensor([2])).dtype == tg.get_default_dtype()
    assert math.isclose(float(sp.legendre_polynomial_p(0.5, tg.tensor([2]))[0]), -0.125,
                        rel_tol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_matches_torch(engine, name):
    tg = engine
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x = rng.uniform(-2, 2, (4, 30))
    n = rng.integers(-2, 15, (4, 30))
    ours = getattr(_special(tg), name)(tg.tensor(x), tg.tensor(n)).numpy()
    theirs = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-10)
