"""Randomness: ``Generator``, the factories and in-place samplers, and torch's numbers for
torch's seed (Note [The same numbers as torch] in transgrad/_random.py), on both engines."""

import math

import numpy as np
import pytest
from transgrad._random import STATE_SIZE


def _np(t):
    return np.asarray(t.detach())


def test_generator_api(engine):
    g = engine.Generator()
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    assert str(g.device) == "cpu" and "Generator" in repr(g)
    a = engine.rand(4, generator=g)
    g.manual_seed(5)
    assert _np(engine.rand(4, generator=g)).tolist() == _np(a).tolist()
    s = g.seed()
    assert isinstance(s, int) and 0 <= s < 2**63 and g.initial_seed() == s
    assert engine.Generator().manual_seed(-1).initial_seed() == 2**64 - 1  # torch wraps
    with pytest.raises(RuntimeError, match="Overflow when unpacking long long"):
        engine.Generator().manual_seed(2**64)
    with pytest.raises(TypeError):
        engine.Generator().manual_seed("x")
    with pytest.raises(RuntimeError, match="runs on the CPU|cuda"):
        engine.Generator(device="cuda")
    with pytest.raises(TypeError, match="generator must be a transgrad.Generator"):
        engine.rand(2, generator=np.random.default_rng(0))


def test_one_generator_for_both_engines(ref, compiled):
    assert ref.default_generator is compiled.default_generator
    ref.manual_seed(11)
    a = _np(compiled.randn(5))
    compiled.manual_seed(11)
    assert _np(ref.randn(5)).tolist() == a.tolist()
    assert compiled.initial_seed() == ref.initial_seed() == 11


def test_state_round_trip_includes_the_cached_normal(engine):
    g = engine.Generator().manual_seed(3)
    engine.randn(3, generator=g)  # an odd count of small normals leaves one cached
    state = g.get_state_bytes()
    assert len(state) == STATE_SIZE
    a = _np(engine.randn(5, generator=g)).tolist() + _np(engine.rand(7, generator=g)).tolist()
    g.set_state_bytes(state)
    b = _np(engine.randn(5, generator=g)).tolist() + _np(engine.rand(7, generator=g)).tolist()
    assert a == b
    with pytest.raises(RuntimeError, match="bytes"):
        g.set_state_bytes(state[:-1])


def test_factory_forms_and_errors(engine):
    assert tuple(engine.randint(5, (2, 3)).shape) == (2, 3)
    assert tuple(engine.randint(2, 5, size=(4,)).shape) == (4,)
    assert tuple(engine.randint(high=5, size=(3,)).shape) == (3,)
    assert tuple(engine.randint(low=1, high=5, size=[2]).shape) == (2,)
    v = _np(engine.randint(-3, 2, (1000,)))
    assert v.min() == -3 and v.max() == 1 and engine.randint(3, (2,)).dtype == engine.int64
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        engine.randint(5, 5, (2,))
    with pytest.raises(TypeError, match="randint\\(\\) received an invalid combination"):
        engine.randint(5)
    p = _np(engine.randperm(50))
    assert sorted(p.tolist()) == list(range(50))
    assert engine.randint_like(engine.zeros(3), 10).dtype == engine.float32
    assert tuple(engine.normal(0.0, 2.0, (3, 2)).shape) == (3, 2)
    assert tuple(engine.normal(engine.zeros(2, 1), engine.ones(3)).shape) == (2, 3)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0"):
        engine.normal(engine.zeros(2), -engine.ones(2))


def test_in_place_samplers(engine):
    x = engine.empty(10000, dtype=engine.float64)
    u = _np(x.uniform_(2, 5))
    assert 2 <= u.min() and u.max() < 5 and abs(u.mean() - 3.5) < 0.05
    assert abs(_np(x.normal_(1, 2)).std() - 2) < 0.1
    assert abs(_np(x.exponential_(4.0)).mean() - 0.25) < 0.02
    assert abs(_np(x.bernoulli_(0.3)).mean() - 0.3) < 0.02
    assert abs(np.median(np.log(_np(x.log_normal_(0.5, 0.1)))) - 0.5) < 0.01
    assert abs(_np(x.geometric_(0.5)).mean() - 2.0) < 0.1
    assert abs(np.median(_np(x.cauchy_(1.0, 1.0))) - 1.0) < 0.1
    r = _np(x.random_(3, 7))
    assert r.min() == 3 and r.max() == 6
    with pytest.raises(RuntimeError, match="uniform_ expects to return a \\[from, to\\) range"):
        x.uniform_(3, 2)
    with pytest.raises(RuntimeError, match='"normal_kernel_cpu" not implemented for \'Long\''):
        engine.zeros(2, dtype=engine.int64).normal_()
    w = engine.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w.uniform_()
    y = engine.ones(3, requires_grad=True) * 2
    y.normal_()
    (y * 3).sum().backward()  # the sampler cut the gradient: torch's zero
    assert y.requires_grad


def test_bernoulli_multinomial_poisson(engine):
    p = engine.tensor([0.0, 1.0, 0.5])
    d = _np(engine.stack([engine.bernoulli(p) for _ in range(400)]))
    assert d[:, 0].sum() == 0 and d[:, 1].sum() == 400 and 150 < d[:, 2].sum() < 250
    with pytest.raises(RuntimeError, match="Expected p_in >= 0 && p_in <= 1"):
        engine.bernoulli(engine.tensor([1.5]))
    w = engine.tensor([[0.0, 1.0, 3.0], [5.0, 0.0, 0.0]])
    m = _np(engine.multinomial(w, 4000, replacement=True))
    assert m.shape == (2, 4000) and (m[1] == 0).all() and abs((m[0] == 2).mean() - 0.75) < 0.03
    m = _np(w[0].multinomial(2))
    assert sorted(m.tolist()) == [1, 2]
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size\\(-1\\)"):
        engine.multinomial(w, 4)
    with pytest.raises(RuntimeError, match="invalid multinomial distribution \\(encountering "
                                           "probability entry < 0\\)"):
        engine.multinomial(engine.tensor([1.0, -1.0]), 1)
    with pytest.raises(RuntimeError, match="prob_dist must be 1 or 2 dim"):
        engine.multinomial(engine.ones(2, 2, 2), 1)
    lam = engine.full((20000,), 3.0, dtype=engine.float64)
    assert abs(_np(engine.poisson(lam)).mean() - 3.0) < 0.05


# ---- torch's numbers for torch's seed --------------------------------------------------------

def _same(ours, theirs, approx=False):
    """Equal, or for values through log/cos/sin within a few ulp (torch computes those with
    vector math functions, we with numpy's)."""
    a, b = _np(ours), theirs.detach().numpy()
    assert a.shape == b.shape and str(a.dtype) == str(b.dtype)
    if approx and a.dtype.kind == "f":
        np.testing.assert_array_max_ulp(a, b, maxulp=4)
    else:
        np.testing.assert_array_equal(a, b)


@pytest.mark.torch
@pytest.mark.parametrize("n", [1, 5, 15, 16, 17, 33, 100])
def test_factories_draw_torchs_numbers(engine, n):
    torch = pytest.importorskip("torch")
    for seed in (0, 123456789, 2**40 + 7):
        engine.manual_seed(seed)
        torch.manual_seed(seed)
        for name in ("rand", "randn"):
            for ours, theirs in ((engine.float32, torch.float32), (engine.float64, torch.float64)):
                _same(getattr(engine, name)(n, dtype=ours), getattr(torch, name)(n, dtype=theirs),
                      name == "randn")
        _same(engine.randint(-5, 2**40, (n,)), torch.randint(-5, 2**40, (n,)))
        _same(engine.randint(7, (n, 2)), torch.randint(7, (n, 2)))
        _same(engine.randperm(n), torch.randperm(n))
        _same(engine.normal(engine.zeros(n), 2.0), torch.normal(torch.zeros(n), 2.0), True)
        _same(engine.rand(2), torch.rand(2))  # and the stream stands where torch's does


@pytest.mark.torch
def test_in_place_samplers_draw_torchs_numbers(engine):
    torch = pytest.importorskip("torch")
    engine.manual_seed(1)
    torch.manual_seed(1)
    for n in (3, 20):
        for ours, theirs in ((engine.float32, torch.float32), (engine.float64, torch.float64)):
            x, t = engine.empty(n, dtype=ours), torch.empty(n, dtype=theirs)
            f32 = True  # through log/cos/sin: within a few ulp
            _same(x.uniform_(-2, 3), t.uniform_(-2, 3))
            _same(x.uniform_(-0.123, 0.456), t.uniform_(-0.123, 0.456))
            _same(x.normal_(1, 3), t.normal_(1, 3), f32)
            _same(x.bernoulli_(0.3), t.bernoulli_(0.3))
            _same(x.exponential_(2.0), t.exponential_(2.0), f32)
            _same(x.cauchy_(), t.cauchy_(), f32)
            _same(x.log_normal_(0.5, 1.5), t.log_normal_(0.5, 1.5), f32)
            _same(x.geometric_(0.3), t.geometric_(0.3))
            _same(x.random_(10), t.random_(10))
            _same(x.random_(), t.random_())
            _same(engine.bernoulli(engine.rand(n, dtype=ours)),
                  torch.bernoulli(torch.rand(n, dtype=theirs)))
    _same(engine.empty(4, dtype=engine.int64).random_(),
          torch.empty(4, dtype=torch.int64).random_())
    _same(engine.rand(3), torch.rand(3))


@pytest.mark.torch
def test_a_model_starts_from_torchs_weights(engine):
    """After the same manual_seed a model is initialised, and dropped out, as torch's."""
    torch = pytest.importorskip("torch")

    def build(lib):
        lib.manual_seed(2024)
        net = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.Flatten(),
                                lib.nn.Linear(4 * 6 * 6, 10), lib.nn.Embedding(5, 3))
        extra = lib.empty(6, 5)
        lib.nn.init.kaiming_normal_(extra)
        lib.nn.init.xavier_uniform_(extra)
        lib.nn.init.orthogonal_(extra)
        for std, a, b in ((1.0, -2.0, 2.0), (1.0, 1.5, 3.0)):  # both of torch's branches
            lib.nn.init.trunc_normal_(extra, 0.0, std, a, b)
        dropped = lib.nn.Dropout(0.4)(lib.ones(50))
        return [p for p in net.parameters()] + [extra, dropped, lib.rand(2)]

    for ours, theirs in zip(build(engine), build(torch), strict=True):
        a, b = _np(ours), theirs.detach().numpy()
        np.testing.assert_allclose(a, b, rtol=0, atol=3e-7 * max(1.0, math.sqrt(a.size) / 10))
