"""The PyTorch-style API over the conv/pool/norm/misc formulas and the API-level composites
(einsum, roll, repeat, mv): argument forms, values against torch, gradients of first and
second order (gradcheck, gradgradcheck), both engines.
"""

import numpy as np
import pytest

try:  # the torch comparisons skip without torch; the torch-free tests still run
    import torch
except ImportError:
    torch = None
TF = torch.nn.functional if torch is not None else None
needs_torch = pytest.mark.skipif(torch is None, reason="needs torch (a comparison with it)")


def _pair(engine, a):
    return engine.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _close(ours, theirs, tol=1e-10):
    np.testing.assert_allclose(np.asarray(ours.detach()), theirs.detach().numpy(), rtol=tol,
                               atol=tol)


def _check_grads(engine, fn, *arrays):
    leaves = tuple(engine.tensor(a, requires_grad=True) for a in arrays)
    assert engine.autograd.gradcheck(fn, leaves)
    assert engine.autograd.gradgradcheck(fn, leaves)


rng = np.random.default_rng(7)
X = rng.standard_normal((2, 4, 7, 6))
W = rng.standard_normal((6, 2, 3, 2))
BIAS = rng.standard_normal(6)


@needs_torch
@pytest.mark.parametrize("kw", [dict(stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
                                dict(padding="same", groups=2), dict(padding="valid"),
                                dict(stride=2, groups=1)])
def test_conv2d_forms(engine, kw):
    w = W if kw.get("groups", 1) == 2 else rng.standard_normal((6, 4, 3, 2))
    (x, xt), (wq, wt), (b, bt) = _pair(engine, X), _pair(engine, w), _pair(engine, BIAS)
    _close(engine.conv2d(x, wq, b, **kw), torch.conv2d(xt, wt, bt, **kw))
    _close(engine.conv2d(x[0], wq, None, **kw), torch.conv2d(xt[0], wt, None, **kw))  # unbatched


@needs_torch
def test_conv1d_forms(engine):
    x, w = rng.standard_normal((2, 4, 9)), rng.standard_normal((6, 2, 3))
    (xq, xt), (wq, wt) = _pair(engine, x), _pair(engine, w)
    for kw in [dict(stride=2, padding=1, groups=2), dict(padding="same", dilation=2, groups=2)]:
        _close(engine.conv1d(xq, wq, None, **kw), torch.conv1d(xt, wt, None, **kw))


@needs_torch
def test_conv2d_double_backward_matches_torch(engine):
    (x, xt), (w, wt) = _pair(engine, X[:1]), _pair(engine, W)
    y, yt = engine.conv2d(x, w, None, padding=1, groups=2), torch.conv2d(xt, wt, None, padding=1,
                                                                         groups=2)
    gx, gw = engine.autograd.grad((y * y).sum(), [x, w], create_graph=True)
    gxt, gwt = torch.autograd.grad((yt * yt).sum(), [xt, wt], create_graph=True)
    _close(gx, gxt), _close(gw, gwt)
    h = engine.autograd.grad((gx * gx).sum() + gw.sum(), [x, w])
    ht = torch.autograd.grad((gxt * gxt).sum() + gwt.sum(), [xt, wt])
    _close(h[0], ht[0], 1e-9), _close(h[1], ht[1], 1e-9)


@needs_torch
def test_pools(engine):
    x, xt = _pair(engine, X)
    _close(engine.max_pool2d(x, 3, 2, 1), torch.max_pool2d(xt, 3, 2, 1))
    v, i = engine.max_pool2d(x, (2, 3), return_indices=True)
    vt, it = TF.max_pool2d(xt, (2, 3), return_indices=True)
    _close(v, vt)
    assert (np.asarray(i) == it.detach().numpy()).all()
    for kw in [dict(), dict(padding=1), dict(padding=1, count_include_pad=False),
               dict(divisor_override=2)]:
        _close(engine.avg_pool2d(x, 3, 2, **kw), TF.avg_pool2d(xt, 3, 2, **kw))
    for size in [(3, 4), 2, (None, 5), (7, 6), (1, 1)]:
        _close(engine.adaptive_avg_pool2d(x, size), TF.adaptive_avg_pool2d(xt, size))
    _close(engine.adaptive_avg_pool2d(x[0], 3), TF.adaptive_avg_pool2d(xt[0], 3))


def test_pool_grads(engine):
    x = X[:1, :2]
    _check_grads(engine, lambda t: engine.avg_pool2d(t, 3, 2, 1, count_include_pad=False), x)
    _check_grads(engine, lambda t: engine.adaptive_avg_pool2d(t, (4, 4)), x)
    _check_grads(engine, lambda t: engine.max_pool2d(t, 2, 1), x)


@needs_torch
def test_batch_norm_updates_running_stats_as_torch(engine):
    (x, xt), (w, wt), (b, bt) = _pair(engine, X), _pair(engine, rng.standard_normal(4)), _pair(
        engine, rng.standard_normal(4))
    rm, rv = engine.zeros(4, dtype=engine.float64), engine.ones(4, dtype=engine.float64)
    rmt, rvt = torch.zeros(4, dtype=torch.float64), torch.ones(4, dtype=torch.float64)
    for _ in range(2):
        y = engine.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2)
        yt = TF.batch_norm(xt, rmt, rvt, wt, bt, training=True, momentum=0.2)
        _close(y, yt)
    _close(rm, rmt), _close(rv, rvt)
    assert not rm.requires_grad
    _close(engine.batch_norm(x, rm, rv, w, b), TF.batch_norm(xt, rmt, rvt, wt, bt))
    g = engine.autograd.grad(engine.batch_norm(x, None, None, w, b, True).sin().sum(), [x, w])
    gt = torch.autograd.grad(TF.batch_norm(xt, None, None, wt, bt, True).sin().sum(), [xt, wt])
    _close(g[0], gt[0], 1e-9), _close(g[1], gt[1], 1e-9)


EINSUMS = [("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
           ("i,i->", [(4,), (4,)]), ("ij->ji", [(3, 4)]), ("bhqd,bhkd->bhqk", [(2, 3, 4, 5),
                                                                            (2, 3, 6, 5)]),
           ("ij,kj", [(3, 4), (5, 4)]), ("ij->", [(3, 4)]), ("ij,jk,kl->li", [(2, 3), (3, 4),
                                                                             (4, 2)]),
           ("i,j->ij", [(3,), (4,)]), ("bi,bi->b", [(3, 4), (3, 4)]), ("iJ,J->i", [(3, 4), (4,)])]


@needs_torch
@pytest.mark.parametrize("eq,shapes", EINSUMS, ids=[e for e, _ in EINSUMS])
def test_einsum(engine, eq, shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    pairs = [_pair(engine, a) for a in arrays]
    _close(engine.einsum(eq, *[p[0] for p in pairs]), torch.einsum(eq, *[p[1] for p in pairs]))
    _check_grads(engine, lambda *ts: engine.einsum(eq, *ts), *arrays)


def test_einsum_errors(engine):
    a = engine.ones(3, 3)
    with pytest.raises(ValueError, match="subscripts"):
        engine.einsum("ijk->i", a)
    with pytest.raises(NotImplementedError, match="diagonal"):
        engine.einsum("ii->i", a)
    with pytest.raises(ValueError, match="sizes"):
        engine.einsum("ij,jk->ik", a, engine.ones(4, 2))


@needs_torch
def test_roll_repeat_mv_and_friends(engine):
    a = rng.standard_normal((3, 4))
    x, xt = _pair(engine, a)
    _close(engine.roll(x, (1, -2), (0, 1)), torch.roll(xt, (1, -2), (0, 1)))
    _close(x.roll(5), xt.roll(5))
    _close(x.repeat(2, 1, 3), xt.repeat(2, 1, 3))
    _close(x.mv(x[0, :4] if False else engine.tensor(a[0])), xt.mv(torch.tensor(a[0])))
    _close(engine.flip(x, (0,)), torch.flip(xt, (0,)))
    _close(x.flip(0, 1), xt.flip(0, 1))
    _close(x.cumsum(1), xt.cumsum(1))
    _close(x.tril(-1), xt.tril(-1)), _close(x.triu(1), xt.triu(1))
    _close(engine.pad(x, (1, 2, -1, 0), value=3.0), TF.pad(xt, (1, 2, -1, 0), value=3.0))
    s, st = x.sort(descending=True), xt.sort(descending=True)
    _close(s.values, st.values)
    assert (np.asarray(s.indices) == st.indices.detach().numpy()).all()
    assert (np.asarray(x.argsort(0)) == xt.argsort(0).detach().numpy()).all()
    _close(x.topk(2, 0, largest=False).values, xt.topk(2, 0, largest=False).values)
    _close(x.masked_fill(x > 0, -1.0), xt.masked_fill(xt > 0, -1.0))
    _check_grads(engine, lambda t: engine.roll(t, (1, 2), (0, 1)) * t, a)
    _check_grads(engine, lambda t: t.repeat(2, 2), a)
    _check_grads(engine, lambda t: t.sort(1).values * t, a)
    _check_grads(engine, lambda m, v: engine.mv(m, v), a, a[0])
    with pytest.raises(TypeError, match="bool"):
        x.masked_fill(x, 0.0)
    with pytest.raises(NotImplementedError, match="constant"):
        engine.pad(x, (1, 1), mode="reflect")


@pytest.mark.parametrize("name,args", [
    ("conv2d", lambda e: (e.ones(1, 2, 2, 2), e.ones(1, 2, 3, 3))),
    ("avg_pool2d", lambda e: (e.ones(1, 1, 2, 2), 3)),
    ("max_pool2d", lambda e: (e.ones(1, 1, 4, 4), 2, 2, 2)),
    ("tril", lambda e: (e.ones(3),)),
    ("pad", lambda e: (e.ones(2), (-2, -1))),
])
def test_errors_name_the_shapes(engine, name, args):
    with pytest.raises((ValueError, IndexError)) as e:
        getattr(engine, name)(*args(engine))
    assert name in str(e.value)


@pytest.mark.parametrize("name,args,error,words", [
    ("conv2d", lambda e: (e.ones(1, 3, 4, 4), e.ones(2, 2, 3, 3)), RuntimeError,
     "Given groups=1, weight of size [2, 2, 3, 3], expected input[1, 3, 4, 4] to have 2 "
     "channels, but got 3 channels instead"),
    ("flip", lambda e: (e.ones(2, 2), (2,)), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ("cumsum", lambda e: (e.ones(2, 2), -3), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    ("sort", lambda e: (e.ones(2, 2), 3), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 3)"),
    ("topk", lambda e: (e.ones(2, 3), 4), RuntimeError, "selected index k out of range"),
])
def test_errors_in_torchs_words(engine, name, args, error, words):
    with pytest.raises(error) as e:
        getattr(engine, name)(*args(engine))
    assert str(e.value).startswith(words)


def test_engines_agree_in_float32(ref, compiled):
    x = rng.standard_normal((2, 4, 9, 9)).astype(np.float32)
    w = rng.standard_normal((8, 4, 3, 3)).astype(np.float32)
    outs = []
    for e in (ref, compiled):
        xq, wq = e.tensor(x, requires_grad=True), e.tensor(w, requires_grad=True)
        y = e.max_pool2d(e.conv2d(xq, wq, None, padding=1).relu(), 2)
        gx, gw = e.autograd.grad(y.sum(), [xq, wq])
        assert y.dtype == np.float32 and gx.dtype == np.float32
        outs.append([np.asarray(t.detach()) for t in (y, gx, gw)])
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)
