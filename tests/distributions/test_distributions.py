"""transgrad.distributions without torch: closed forms, shapes, sampling statistics, engines,
gradcheck / gradgradcheck of log_prob and of the Cholesky factorisation. Both engines."""

import math

import numpy as np
import pytest
from _disthelpers import make_lib, to_numpy

N = 40000  # draws for the statistics tests (fixed seed)


def _np(x):
    return to_numpy(x).astype(np.float64)


# ---- closed forms -----------------------------------------------------------------------------

def test_normal_closed_forms(lib):
    D, t = lib.D, lib.t
    loc, scale, x = np.array([0.3, -1.0]), np.array([1.5, 0.5]), np.array([1.0, -2.0])
    d = D.Normal(t(loc), t(scale))
    expected = -((x - loc) ** 2) / (2 * scale ** 2) - np.log(scale) - 0.5 * math.log(2 * math.pi)
    np.testing.assert_allclose(_np(d.log_prob(t(x))), expected, rtol=1e-12)
    np.testing.assert_allclose(_np(d.entropy()), 0.5 * np.log(2 * math.pi * math.e * scale ** 2),
                               rtol=1e-12)
    cdf = [0.5 * (1 + math.erf((xi - m) / (s * math.sqrt(2)))) for xi, m, s in zip(x, loc, scale)]
    np.testing.assert_allclose(_np(d.cdf(t(x))), cdf, rtol=1e-12)
    np.testing.assert_allclose(_np(d.variance), scale ** 2)
    q = D.Normal(t([0.0, 1.0]), t([1.0, 2.0]))
    kl = (np.log(np.array([1.0, 2.0]) / scale)
          + (scale ** 2 + (loc - [0.0, 1.0]) ** 2) / (2 * np.array([1.0, 2.0]) ** 2) - 0.5)
    np.testing.assert_allclose(_np(D.kl_divergence(d, q)), kl, rtol=1e-12)


def test_categorical_and_bernoulli_closed_forms(lib):
    D, t = lib.D, lib.t
    w = np.array([[1.0, 2.0, 5.0], [3.0, 3.0, 2.0]])
    p = w / w.sum(-1, keepdims=True)
    c = D.Categorical(probs=t(w))
    np.testing.assert_allclose(_np(c.log_prob(lib.tg.tensor([2, 0]))), np.log(p[[0, 1], [2, 0]]),
                               rtol=1e-12)
    np.testing.assert_allclose(_np(c.entropy()), -(p * np.log(p)).sum(-1), rtol=1e-12)
    np.testing.assert_allclose(_np(D.Categorical(logits=t(np.log(w))).probs), p, rtol=1e-12)
    b = D.Bernoulli(logits=t([-2.0, 0.0, 3.0]))
    pr = 1 / (1 + np.exp(-np.array([-2.0, 0.0, 3.0])))
    np.testing.assert_allclose(_np(b.log_prob(t([1.0, 0.0, 0.0]))),
                               np.log([pr[0], 1 - pr[1], 1 - pr[2]]), rtol=1e-12)
    np.testing.assert_allclose(_np(b.entropy()), -(pr * np.log(pr) + (1 - pr) * np.log(1 - pr)),
                               rtol=1e-12)


def test_mvn_closed_form(lib):
    D, t = lib.D, lib.t
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 4))
    cov = a @ a.T + 4 * np.eye(4)
    loc, x = rng.standard_normal(4), rng.standard_normal((3, 4))
    d = D.MultivariateNormal(t(loc), covariance_matrix=t(cov))
    diff = x - loc
    expected = -0.5 * (4 * math.log(2 * math.pi) + np.linalg.slogdet(cov)[1]
                       + np.einsum("ni,ij,nj->n", diff, np.linalg.inv(cov), diff))
    np.testing.assert_allclose(_np(d.log_prob(t(x))), expected, rtol=1e-10)
    np.testing.assert_allclose(_np(d.scale_tril), np.linalg.cholesky(cov), rtol=1e-10)
    np.testing.assert_allclose(_np(d.precision_matrix), np.linalg.inv(cov), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(_np(d.entropy()),
                               0.5 * (4 * (1 + math.log(2 * math.pi)) + np.linalg.slogdet(cov)[1]),
                               rtol=1e-12)
    p = D.MultivariateNormal(t(loc), precision_matrix=t(np.linalg.inv(cov)))
    np.testing.assert_allclose(_np(p.covariance_matrix), cov, rtol=1e-9)


def test_uniform_exponential_laplace_closed_forms(lib):
    D, t = lib.D, lib.t
    u = D.Uniform(t([0.0, -1.0]), t([2.0, 3.0]))
    np.testing.assert_allclose(_np(u.log_prob(t([1.0, 2.5]))), -np.log([2.0, 4.0]))
    np.testing.assert_allclose(_np(u.cdf(t([1.0, 2.0]))), [0.5, 0.75])
    e = D.Exponential(t([2.0]))
    np.testing.assert_allclose(_np(e.log_prob(t([0.5]))), [math.log(2.0) - 1.0])
    np.testing.assert_allclose(_np(e.icdf(e.cdf(t([0.7])))), [0.7], rtol=1e-12)
    la = D.Laplace(t([1.0]), t([0.5]))
    np.testing.assert_allclose(_np(la.log_prob(t([2.0]))), [-math.log(1.0) - 2.0])
    np.testing.assert_allclose(_np(la.icdf(la.cdf(t([0.2])))), [0.2], rtol=1e-12)


def test_transformed_lognormal_closed_form(lib):
    D, t = lib.D, lib.t
    d = D.TransformedDistribution(D.Normal(t([0.2]), t([0.7])), [D.transforms.ExpTransform()])
    x = 1.9
    expected = (-math.log(x * 0.7 * math.sqrt(2 * math.pi))
                - (math.log(x) - 0.2) ** 2 / (2 * 0.49))
    np.testing.assert_allclose(_np(d.log_prob(t([x]))), [expected], rtol=1e-12)
    np.testing.assert_allclose(_np(d.cdf(t([x]))),
                               [0.5 * (1 + math.erf((math.log(x) - 0.2) / (0.7 * math.sqrt(2))))],
                               rtol=1e-12)


# ---- shapes -----------------------------------------------------------------------------------

def _all(lib):
    D, t = lib.D, lib.t
    return {
        "Normal": D.Normal(t([0.0, 1.0]), t([1.0, 2.0])),
        "Bernoulli": D.Bernoulli(probs=t([0.3, 0.6])),
        "Categorical": D.Categorical(probs=t([[0.2, 0.8], [0.5, 0.5]])),
        "OneHotCategorical": D.OneHotCategorical(probs=t([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])),
        "Uniform": D.Uniform(t([0.0, 1.0]), t([1.0, 3.0])),
        "Exponential": D.Exponential(t([1.0, 3.0])),
        "Laplace": D.Laplace(t([0.0, 1.0]), t([1.0, 2.0])),
        "Gamma": D.Gamma(t([0.5, 3.0]), t([1.0, 2.0])),
        "Beta": D.Beta(t([0.5, 3.0]), t([2.0, 2.0])),
        "Dirichlet": D.Dirichlet(t([[0.5, 1.0, 2.0], [3.0, 3.0, 3.0]])),
        "MultivariateNormal": D.MultivariateNormal(
            t([[0.0, 1.0], [2.0, 3.0]]), scale_tril=t([[1.0, 0.0], [0.5, 2.0]])),
        "Independent": D.Independent(D.Normal(t([[0.0, 1.0]] * 2), t([[1.0, 2.0]] * 2)), 1),
        "TransformedDistribution": D.TransformedDistribution(
            D.Normal(t([0.0, 1.0]), t([1.0, 2.0])), [D.transforms.TanhTransform()]),
    }


def test_sample_shapes_and_expand(lib):
    for name, d in _all(lib).items():
        batch, event = tuple(d.batch_shape), tuple(d.event_shape)
        assert batch == (2,), name
        assert tuple(d.sample().shape) == batch + event, name
        assert tuple(d.sample((4, 3)).shape) == (4, 3) + batch + event, name
        assert tuple(d.sample(5).shape) == (5,) + batch + event, name
        if d.has_rsample:
            assert tuple(d.rsample((4,)).shape) == (4,) + batch + event, name
        e = d.expand((3, 2))
        assert type(e) is type(d) and tuple(e.batch_shape) == (3, 2), name
        assert tuple(e.sample((4,)).shape) == (4, 3, 2) + event, name
        # log_prob of its own samples: batch-shaped, finite
        lp = d.log_prob(d.sample((6,))) if name not in ("Gamma", "Beta", "Dirichlet") else None
        if lp is not None:
            assert tuple(lp.shape) == (6,) + batch, name
            assert np.isfinite(_np(lp)).all(), name


def test_enumerate_support(lib):
    D, t = lib.D, lib.t
    c = D.Categorical(probs=t([[0.2, 0.8, 0.0]] * 2))
    np.testing.assert_array_equal(_np(c.enumerate_support()), [[0, 0], [1, 1], [2, 2]])
    assert tuple(c.enumerate_support(expand=False).shape) == (3, 1)
    b = D.Bernoulli(probs=t([0.5, 0.2]))
    np.testing.assert_array_equal(_np(b.enumerate_support()), [[0, 0], [1, 1]])
    o = D.OneHotCategorical(probs=t([0.5, 0.5]))
    np.testing.assert_array_equal(_np(o.enumerate_support()), np.eye(2))


# ---- sampling statistics ------------------------------------------------------------------------

def _check_moments(samples, mean, var, name, event_dims=0):
    s = _np(samples)
    mean, var = _np(mean), _np(var)
    se = np.sqrt(var / s.shape[0])
    assert np.all(np.abs(s.mean(0) - mean) < 5 * se + 1e-12), (name, s.mean(0), mean)
    # the sample variance of N draws has relative standard error about sqrt(2 / N) (normal);
    # heavy-tailed ones (Gamma 0.5, Laplace) more: 10% covers them at N = 40000
    np.testing.assert_allclose(s.var(0), var, rtol=0.1, err_msg=name)


def test_sampling_statistics(lib):
    lib.tg.manual_seed(1234)
    for name, d in _all(lib).items():
        if name in ("Categorical", "TransformedDistribution"):
            continue  # NaN moments / no closed form: below
        _check_moments(d.sample((N,)), d.mean, d.variance, name)
        if d.has_rsample:
            _check_moments(d.rsample((N,)).detach(), d.mean, d.variance, name + ".rsample")


def test_categorical_frequencies(lib):
    lib.tg.manual_seed(7)
    p = np.array([[0.1, 0.0, 0.6, 0.3], [0.25, 0.25, 0.25, 0.25]])
    draws = _np(lib.D.Categorical(probs=lib.t(p)).sample((N,))).astype(int)
    for row in range(2):
        freq = np.bincount(draws[:, row], minlength=4) / N
        se = np.sqrt(p[row] * (1 - p[row]) / N)
        assert np.all(np.abs(freq - p[row]) <= 5 * se + 1e-12), (freq, p[row])
    assert not np.any(draws[:, 0] == 1)  # probability 0 is never drawn


def test_mvn_sample_covariance(lib):
    lib.tg.manual_seed(11)
    cov = np.array([[2.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 0.5]])
    d = lib.D.MultivariateNormal(lib.t([1.0, -1.0, 0.0]), covariance_matrix=lib.t(cov))
    s = _np(d.sample((N,)))
    np.testing.assert_allclose(np.cov(s.T), cov, atol=0.05)
    np.testing.assert_allclose(s.mean(0), [1.0, -1.0, 0.0], atol=0.03)


def test_tanh_transformed_samples_match_the_cdf(lib):
    lib.tg.manual_seed(2)
    D, t = lib.D, lib.t
    d = D.TransformedDistribution(D.Normal(t([0.3]), t([0.8])), [D.transforms.TanhTransform()])
    s = _np(d.sample((N,)))[:, 0]
    for q in (-0.5, 0.0, 0.4, 0.9):
        expected = float(_np(d.cdf(t([q])))[0])
        assert abs((s <= q).mean() - expected) < 5 * math.sqrt(expected * (1 - expected) / N)


# ---- rsample is reparameterised ----------------------------------------------------------------

def test_rsample_gradients_reach_the_parameters(lib):
    D, t = lib.D, lib.t
    lib.tg.manual_seed(3)
    loc, scale = t([0.5, -1.0], True), t([2.0, 0.5], True)
    x = D.Normal(loc, scale).rsample((7,))
    x.sum().backward()
    eps = (_np(x) - [0.5, -1.0]) / [2.0, 0.5]
    np.testing.assert_allclose(_np(loc.grad), [7.0, 7.0])
    np.testing.assert_allclose(_np(scale.grad), eps.sum(0), rtol=1e-12)

    rate = t([2.0, 0.5], True)
    x = D.Exponential(rate).rsample((5,))
    x.sum().backward()
    np.testing.assert_allclose(_np(rate.grad), (-_np(x) / [2.0, 0.5]).sum(0), rtol=1e-12)

    low, high = t([0.0, 1.0], True), t([1.0, 4.0], True)
    x = D.Uniform(low, high).rsample((5,))
    x.sum().backward()
    frac = (_np(x) - [0.0, 1.0]) / [1.0, 3.0]
    np.testing.assert_allclose(_np(low.grad), (1 - frac).sum(0), rtol=1e-12)
    np.testing.assert_allclose(_np(high.grad), frac.sum(0), rtol=1e-12)

    loc, scale = t([0.0], True), t([2.0], True)
    x = D.Laplace(loc, scale).rsample((5,))
    x.sum().backward()
    np.testing.assert_allclose(_np(scale.grad), ((_np(x) - 0.0) / 2.0).sum(0), rtol=1e-12)
    np.testing.assert_allclose(_np(loc.grad), [5.0])


def test_sample_has_no_history(lib):
    D, t = lib.D, lib.t
    loc = t([0.0], True)
    for d in (D.Normal(loc, 1.0), D.Laplace(loc, 1.0), D.Uniform(loc, loc + 1)):
        s = d.sample((3,))
        assert not s.requires_grad and s.grad_fn is None


def test_gamma_rsample_gradient_is_a_derivative_of_the_quantile(lib):
    """d sample / d alpha at a fixed CDF value, checked by finite differences of the Gamma
    quantile (bisection on the CDF, from gamma.py's incomplete gamma)."""
    from transgrad.distributions.gamma import _gammainc_scalar

    lib.tg.manual_seed(4)
    alpha = lib.t([0.4, 2.0, 9.0], True)
    x = lib.D.Gamma(alpha, lib.t([1.0, 1.0, 1.0])).rsample()
    x.sum().backward()

    def quantile(a, p):
        lo, hi = 0.0, 200.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if _gammainc_scalar(a, mid) < p else (lo, mid)
        return 0.5 * (lo + hi)

    for a, xi, g in zip([0.4, 2.0, 9.0], _np(x), _np(alpha.grad)):
        p = _gammainc_scalar(a, xi)
        h = 1e-4
        fd = (quantile(a + h, p) - quantile(a - h, p)) / (2 * h)
        assert abs(g - fd) <= 1e-4 * max(1.0, abs(fd)), (a, g, fd)


# ---- gradcheck / gradgradcheck ------------------------------------------------------------------

def test_gradcheck_log_prob(lib):
    D, t = lib.D, lib.t
    gc, ggc = lib.tg.autograd.gradcheck, lib.tg.autograd.gradgradcheck
    x = t([0.3, -1.2, 2.0])
    loc_scale = (t([0.1, 0.2, 0.3], True), t([1.0, 0.5, 2.0], True))
    cases = [
        (lambda m, s: D.Normal(m, s).log_prob(x), loc_scale),
        (lambda m, s: D.Laplace(m, s).log_prob(x), loc_scale),
        (lambda r: D.Exponential(r).log_prob(x.abs()), (t([1.0, 0.5, 2.0], True),)),
        (lambda lg: D.Categorical(logits=lg).log_prob(lib.tg.tensor([0, 2])),
         (t([[0.1, 0.2, -1.0], [1.0, 0.0, 0.5]], True),)),
        (lambda lg: D.Bernoulli(logits=lg).log_prob(t([1.0, 0.0, 1.0])),
         (t([0.4, -2.0, 1.0], True),)),
        (lambda lg: D.Categorical(logits=lg).entropy(), (t([[0.1, 0.2, -1.0]], True),)),
        (lambda m, s: D.TransformedDistribution(
            D.Normal(m, s), [D.transforms.TanhTransform(), D.transforms.AffineTransform(0.5, 2.0)]
        ).log_prob(t([0.2, 1.0, -1.0])), loc_scale),
    ]
    for fn, inputs in cases:
        assert gc(fn, inputs)
        assert ggc(fn, inputs)


def test_gradcheck_mvn_and_cholesky(lib):
    D, t = lib.D, lib.t
    gc, ggc = lib.tg.autograd.gradcheck, lib.tg.autograd.gradgradcheck
    from transgrad.distributions.linalg import cholesky, solve_triangular_lower

    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 3, 3))
    spd = a @ np.swapaxes(a, -1, -2) + 3 * np.eye(3)
    L = t(spd, True)
    np.testing.assert_allclose(_np(cholesky(L)), np.linalg.cholesky(spd), rtol=1e-12)
    assert gc(lambda m: cholesky(m), (L,))
    assert ggc(lambda m: cholesky(m), (L,))
    tril = t(np.linalg.cholesky(spd), True)
    b = t(rng.standard_normal((2, 3, 2)), True)
    np.testing.assert_allclose(_np(solve_triangular_lower(tril, b)),
                               np.linalg.solve(np.linalg.cholesky(spd), _np(b)), rtol=1e-12)
    assert gc(solve_triangular_lower, (tril, b))
    x = t(rng.standard_normal((4, 2, 3)))
    loc = t(rng.standard_normal(3), True)
    # finite differences perturb one entry at a time (leaving the triangle / the symmetric
    # matrices): validation off, as it would refuse those points
    def by_tril(m, s):
        return D.MultivariateNormal(m, scale_tril=s, validate_args=False).log_prob(x)

    def by_cov(m, c):
        return D.MultivariateNormal(m, covariance_matrix=c, validate_args=False).log_prob(x)

    assert gc(by_tril, (loc, tril))
    assert ggc(by_tril, (loc, tril))
    assert gc(by_cov, (loc, L))


def test_cholesky_rejects_a_matrix_that_is_not_positive_definite(lib):
    from transgrad.distributions.linalg import cholesky

    with pytest.raises(RuntimeError, match="leading minor of order 2 is not positive-definite"):
        cholesky(lib.t([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\)"):
        cholesky(lib.t([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]]))


# ---- engines ----------------------------------------------------------------------------------

def test_the_parameters_engine_decides(lib):
    d = lib.D.Normal(lib.t([0.0]), 1.0)
    for x in (d.sample(), d.rsample(), d.log_prob(lib.t([0.0])), d.scale):
        assert type(x) is lib.tg.Tensor


def test_numbers_default_to_the_engine_of_the_package(engine):
    import transgrad.distributions as compiled_d
    import transgrad.reference
    import transgrad.reference.distributions as reference_d

    lib = make_lib(engine)
    expected = compiled_d if engine.__name__ == "transgrad" else reference_d
    assert lib.D is expected
    d = lib.D.Normal(0.0, 1.0)
    assert type(d.loc) is engine.Tensor and d.loc.dtype == engine.get_default_dtype()
    assert type(d.sample((2,))) is engine.Tensor
    assert isinstance(d, compiled_d.Normal)
    assert transgrad.reference.distributions is reference_d


def test_mixing_engines_is_refused(compiled, ref):
    import transgrad.distributions as D

    with pytest.raises(TypeError, match="different engines"):
        D.Normal(compiled.tensor([0.0]), ref.tensor([1.0]))


def test_engines_agree(compiled, ref):
    """Same seed, same parameters: the two engines give the same samples and values."""
    out = []
    for eng in (ref, compiled):
        lib = make_lib(eng)
        eng.manual_seed(9)
        d = lib.D.Normal(lib.t([0.0, 1.0]), lib.t([1.0, 3.0]))
        c = lib.D.Categorical(logits=lib.t([0.1, 0.5, -0.3]))
        out.append([_np(d.sample((3,))), _np(c.sample((5,))), _np(d.log_prob(lib.t([0.2, 0.2]))),
                    _np(lib.D.kl_divergence(d, lib.D.Normal(0.0, lib.t([1.0, 1.0]))))])
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_lazy_parameter_first_read_under_no_grad_keeps_the_graph(lib):
    """sample() reads the lazy ``probs`` under no_grad; entropy() later must still
    differentiate to the logits (torch computes lazy properties with grad enabled)."""
    logits = lib.t([0.2, -0.5, 1.0], True)
    d = lib.D.Categorical(logits=logits)
    d.sample((3,))
    d.entropy().backward()
    p = np.exp(_np(logits)) / np.exp(_np(logits)).sum()
    h = -(p * np.log(p)).sum()
    np.testing.assert_allclose(_np(logits.grad), -p * (np.log(p) + h), rtol=1e-10)


def test_gamma_and_dirichlet_rsample_gradients_are_unbiased(lib):
    """The reparameterised gradient of E[f(x)] averaged over many samples is the gradient of
    the closed-form expectation: Gamma E[x^2] = a (a + 1) / r^2; Dirichlet E[x_0^2] =
    a_0 (a_0 + 1) / (s (s + 1)), s = sum(a)."""
    lib.tg.manual_seed(21)
    n = 20000
    a, r = lib.t([0.7, 3.0], True), lib.t([2.0, 0.5], True)
    x = lib.D.Gamma(a, r).rsample((n,))
    ((x * x).sum(0) / n).sum().backward()
    an, rn = np.array([0.7, 3.0]), np.array([2.0, 0.5])
    np.testing.assert_allclose(_np(a.grad), (2 * an + 1) / rn ** 2, rtol=0.05)
    np.testing.assert_allclose(_np(r.grad), -2 * an * (an + 1) / rn ** 3, rtol=0.05)

    c = lib.t([0.5, 2.0, 1.5], True)
    y = lib.D.Dirichlet(c).rsample((n,))
    ((y[:, 0] * y[:, 0]).sum() / n).backward()
    cn = np.array([0.5, 2.0, 1.5])
    s = cn.sum()
    d0 = ((2 * cn[0] + 1) * s * (s + 1) - cn[0] * (cn[0] + 1) * (2 * s + 1)) / (s * (s + 1)) ** 2
    dk = -cn[0] * (cn[0] + 1) * (2 * s + 1) / (s * (s + 1)) ** 2
    np.testing.assert_allclose(_np(c.grad), [d0, dk, dk], rtol=0.06)


def test_transform_cache_and_inverse(lib):
    """With cache_size=1, inverting the tensor a transform just produced returns the very
    input (exact even where atanh of a rounded tanh is not); without it, it recomputes."""
    T = lib.D.transforms
    x = lib.t([0.5, 25.0])
    cached = T.TanhTransform(cache_size=1)
    y = cached(x)
    assert cached.inv(y) is x
    plain = T.TanhTransform()
    back = _np(plain.inv(plain(x)))
    assert abs(back[0] - 0.5) < 1e-12 and not np.isfinite(back[1])  # tanh(25) rounds to 1
    affine = T.AffineTransform(1.0, -2.0)
    compose = T.ComposeTransform([T.ExpTransform(), affine])
    z = lib.t([0.3, -0.2])
    np.testing.assert_allclose(_np(compose.inv(compose(z))), _np(z), rtol=1e-12)
    np.testing.assert_allclose(_np(compose.log_abs_det_jacobian(z, compose(z))),
                               _np(z) + math.log(2.0), rtol=1e-12)
    assert compose.sign == -1 and compose.inv.inv is compose
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        T.ExpTransform(cache_size=2)
