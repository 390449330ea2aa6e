"""The table entries composed of existing functions (_api/composites.py) on both engines: the
edges each docstring promises (NaN, -0.0, zeros, all-NaN slices, errors), and torch's values
and gradients at those edges where torch is installed."""

import math

import numpy as np
import pytest


def test_fmax_fmin_ignore_nan(engine):
    tg = engine
    x = tg.tensor([1.0, math.nan, 3.0, math.nan], dtype=tg.float64)
    y = tg.tensor([2.0, 5.0, math.nan, math.nan], dtype=tg.float64)
    np.testing.assert_array_equal(tg.fmax(x, y).numpy(), [2.0, 5.0, 3.0, math.nan])
    np.testing.assert_array_equal(tg.fmin(x, y).numpy(), [1.0, 5.0, 3.0, math.nan])


def test_copysign_negative_zero_and_gradient(engine):
    tg = engine
    x = tg.tensor([1.5, -2.0, 0.0, 3.0], dtype=tg.float64, requires_grad=True)
    y = tg.tensor([-0.0, 1.0, -1.0, 0.0], dtype=tg.float64)
    out = tg.copysign(x, y)
    np.testing.assert_array_equal(out.detach().numpy(), [-1.5, 2.0, -0.0, 3.0])
    assert np.signbit(out.detach().numpy()[2])
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [-1.0, -1.0, 0.0, 1.0])


def test_entr_edges(engine):
    tg = engine
    out = tg.special.entr(tg.tensor([0.0, -1.0, 1.0, 0.5], dtype=tg.float64)).numpy()
    np.testing.assert_allclose(out, [0.0, -math.inf, 0.0, 0.5 * math.log(2.0)])


def test_xlog1py_zero_input(engine):
    tg = engine
    x = tg.tensor([0.0, 0.0, 2.0], dtype=tg.float64)
    y = tg.tensor([-1.0, 3.0, 1.0], dtype=tg.float64)
    np.testing.assert_allclose(tg.special.xlog1py(x, y).numpy(), [0.0, 0.0, 2 * math.log(2)])


def test_mvlgamma_domain(engine):
    tg = engine
    with pytest.raises(RuntimeError, match=r"greater than \(p-1\)/2"):
        tg.mvlgamma(tg.tensor([0.9, 2.0], dtype=tg.float64), 3)
    v = tg.mvlgamma(tg.tensor([2.5], dtype=tg.float64), 2).numpy()[0]
    want = math.lgamma(2.5) + math.lgamma(2.0) + 0.5 * math.log(math.pi)
    assert math.isclose(v, want, rel_tol=1e-12)


def test_nanmedian_skips_nan(engine):
    tg = engine
    x = tg.tensor([[1.0, math.nan, 3.0, 2.0], [math.nan] * 4, [4.0, 1.0, 2.0, 3.0]],
                  dtype=tg.float64)
    values, indices = tg.nanmedian(x, 1)
    np.testing.assert_array_equal(values.numpy(), [2.0, math.nan, 2.0])
    np.testing.assert_array_equal(np.asarray(indices.numpy())[[0, 2]], [3, 2])
    assert float(tg.nanmedian(x)) == 2.0


def test_put_negative_index_and_range(engine):
    tg = engine
    x = tg.zeros(2, 3, dtype=tg.float64)
    out = tg.put(x, tg.tensor([-1, 0]), tg.tensor([5.0, 7.0], dtype=tg.float64))
    np.testing.assert_array_equal(out.numpy(), [[7, 0, 0], [0, 0, 5]])
    with pytest.raises(IndexError, match="out of range"):
        tg.put(x, tg.tensor([6]), tg.tensor([1.0], dtype=tg.float64))


def test_pixel_shuffle_round_trip(engine):
    tg = engine
    x = tg.tensor(np.arange(2 * 8 * 2 * 3, dtype=np.float64).reshape(2, 8, 2, 3))
    y = tg.pixel_shuffle(x, 2)
    assert tuple(y.shape) == (2, 2, 4, 6)
    np.testing.assert_array_equal(tg.pixel_unshuffle(y, 2).numpy(), x.numpy())
    with pytest.raises(RuntimeError, match="divisible"):
        tg.pixel_shuffle(x, 3)


@pytest.mark.parametrize("name, args", [
    ("fmax", ([1.0, -2.0, 0.5], [1.0, 3.0, -1.0])),
    ("copysign", ([1.0, -2.0, 0.5], [-0.0, 3.0, -1.0])),
    ("renorm", ([[3.0, 4.0], [0.1, 0.2]], 2, 0, 1.0)),
])
def test_gradients_at_edges_match_torch(engine, name, args):
    """Ties (fmax), -0.0 (copysign), a slice exactly over maxnorm (renorm): first and second
    order against torch."""
    torch = pytest.importorskip("torch")
    from transgrad.coverage import compare_calls
    from transgrad.lang import T

    arrays = [(T(*np.shape(a)), np.asarray(a, dtype=np.float64)) if isinstance(a, list) else a
              for a in args]
    assert compare_calls(engine, name, torch, name, arrays, {}, 0) is None


def test_sinc_derivatives_at_zero(engine):
    """sinc'(0) = 0 (as torch) and sinc''(0) = -pi^2/3 (torch: NaN), via the Taylor branch."""
    tg = engine
    x = tg.tensor([0.0, 1e-4, 0.3], dtype=tg.float64, requires_grad=True)
    y = tg.sinc(x)
    (g,) = tg.autograd.grad(y.sum(), x, create_graph=True)
    (gg,) = tg.autograd.grad(g.sum(), x)
    t = np.pi * np.array([0.0, 1e-4, 0.3])
    np.testing.assert_allclose(y.detach().numpy(), [1.0, np.sin(t[1]) / t[1], np.sin(t[2]) / t[2]],
                               rtol=1e-15)
    assert g.detach().numpy()[0] == 0.0
    np.testing.assert_allclose(gg.numpy()[:2], -np.pi**2 / 3, rtol=1e-7)


SWEEP = np.concatenate([np.linspace(-40, 40, 801), [0.0, 1e-8, -1e-8, 14.999, 15.0, 15.001,
                                                      7.999, 8.0, -1.0, -20.0, 700.0, -700.0]])


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e", "log_ndtr", "erfcx"])
def test_special_branches_match_torch_across_ranges(engine, name):
    """Note [Special functions by branches]: relative 1e-12 on both sides of every branch
    point, and the same infinities (i0(700) overflows, erfcx(-40) too)."""
    torch = pytest.importorskip("torch")
    ours = getattr(engine.special, name)(engine.tensor(SWEEP)).numpy()
    theirs = getattr(torch.special, name)(torch.tensor(SWEEP)).numpy()
    np.testing.assert_array_equal(np.isfinite(ours), np.isfinite(theirs))
    ok = np.isfinite(theirs)
    np.testing.assert_allclose(ours[ok], theirs[ok], rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e", "log_ndtr", "erfcx"])
def test_special_branches_gradgradcheck(engine, name):
    """(Not at 0: i0e and i1e have a kink there, exp(-|x|).)"""
    tg = engine
    x = tg.tensor([-16.0, -3.0, -0.5, 0.2, 0.7, 9.0, 15.5], dtype=tg.float64, requires_grad=True)
    f = getattr(tg.special, name)
    assert tg.autograd.gradcheck(f, (x,))
    assert tg.autograd.gradgradcheck(f, (x,))


def test_nextafter_frexp_by_hand(engine):
    tg = engine
    x = tg.tensor([1.0, 0.0, -2.0, 3.0], dtype=tg.float64, requires_grad=True)
    y = tg.tensor([2.0, -1.0, -2.0, 0.0], dtype=tg.float64)
    out = tg.nextafter(x, y)
    a = np.array([1.0, 0.0, -2.0, 3.0])
    np.testing.assert_array_equal(out.detach().numpy(), np.nextafter(a, y.numpy()))
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 0.0, 1.0])
    m, e = tg.frexp(tg.tensor([8.0, -0.375, 0.0, 1e-300], dtype=tg.float64))
    np.testing.assert_array_equal(m.numpy(), [0.5, -0.75, 0.0, np.frexp(1e-300)[0]])
    np.testing.assert_array_equal(e.numpy(), [4, -1, 0, np.frexp(1e-300)[1]])


# -- bilinear (_trilinear), _weight_norm (_weight_norm_interface), special.ndtri --------------


def test_bilinear_matches_torch_and_gradchecks(engine):
    torch = pytest.importorskip("torch")
    r = np.random.default_rng(7)
    arrays = [r.standard_normal(s) for s in ((2, 3, 4), (2, 3, 2), (5, 4, 2), (5,))]
    ours = [engine.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y = engine.nn.functional.bilinear(*ours)
    z = torch.nn.functional.bilinear(*theirs)
    np.testing.assert_allclose(y.detach().numpy(), z.detach().numpy(), atol=1e-12)
    cot = r.standard_normal(tuple(z.shape))
    g = engine.autograd.grad([y], ours, [engine.tensor(cot)])
    h = torch.autograd.grad([z], theirs, [torch.tensor(cot)])
    for a, b in zip(g, h):
        np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-12)
    assert engine.autograd.gradgradcheck(engine.nn.functional.bilinear, ours[:3])


@pytest.mark.parametrize("shapes, message", [
    (((2, 3), (2, 1, 4)), "bilinear\\(\\): input dimensions do not match: got 2 and 3"),
    (((2, 3), (3, 4)), "input batch dimensions do not match at dim 0: got 2 and 3"),
    (((2, 2), (2, 4)), "input1 size does not match weight size: got 2 but expected 3"),
    (((2, 3), (2, 5)), "input2 size does not match weight size: got 5 but expected 4"),
])
def test_bilinear_errors_are_torchs(engine, shapes, message):
    w = np.ones((5, 3, 4))
    with pytest.raises(RuntimeError, match=message):
        engine.nn.functional.bilinear(*(engine.tensor(np.ones(s)) for s in shapes),
                                      engine.tensor(w))


def test_weight_norm_first_order_is_torchs_second_order_is_right(engine):
    torch = pytest.importorskip("torch")
    r = np.random.default_rng(8)
    v, g = r.standard_normal((4, 3)), r.uniform(0.5, 2.0, (4, 1))
    ours = [engine.tensor(a, requires_grad=True) for a in (v, g)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (v, g)]
    y, z = engine._weight_norm(*ours, 0), torch._weight_norm(*theirs, 0)
    np.testing.assert_allclose(y.detach().numpy(), z.detach().numpy(), atol=1e-12)
    cot = r.standard_normal((4, 3))
    for a, b in zip(engine.autograd.grad([y], ours, [engine.tensor(cot)]),
                    torch.autograd.grad([z], theirs, [torch.tensor(cot)])):
        np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-12)
    # torch's double backward treats the saved norms as constants: its own check fails
    assert engine.autograd.gradgradcheck(lambda a, b: engine._weight_norm(a, b, 0), ours)
    assert not torch.autograd.gradgradcheck(lambda a, b: torch._weight_norm(a, b, 0), theirs,
                                            raise_exception=False)
    assert tuple(engine.norm_except_dim(ours[0], 2, -1).shape) == ()
    assert tuple(engine.norm_except_dim(engine.tensor(np.ones((2, 3, 4))), 2, 1).shape) == (
        1, 3, 1)


def test_ndtri_matches_torch(engine):
    torch = pytest.importorskip("torch")
    p = np.array([1e-3, 0.02, 0.3, 0.5, 0.97, 0.0, 1.0])
    x = engine.tensor(p, requires_grad=True)
    t = torch.tensor(p, requires_grad=True)
    np.testing.assert_allclose(engine.special.ndtri(x).detach().numpy(),
                               torch.special.ndtri(t).detach().numpy(), rtol=1e-12)
    (g,) = engine.autograd.grad([engine.special.ndtri(x)[:5].sum()], [x])
    (h,) = torch.autograd.grad([torch.special.ndtri(t)[:5].sum()], [t])
    np.testing.assert_allclose(g.numpy(), h.numpy(), rtol=1e-10)
