"""Convolution, pooling and batch-norm modules (and their functionals) on both engines.

Against torch with copied float64 weights: forward values and the gradients of a random
projection of the output with respect to the input and every parameter; batch norm's running
statistics after a few training steps, then eval. A small CNN trains on both engines: its loss
falls, and the engines (and torch) give the same losses step by step.
"""

import math
import os
import sys

import numpy as np
import pytest
from _nnhelpers import load_engine, nn_of, to_numpy

torch = pytest.importorskip("torch")
TF = torch.nn.functional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "examples"))


def _rng(seed=0):
    return np.random.default_rng(seed)


def _load_from_torch(lib, ours, theirs):
    """Copy torch's parameters and buffers (float64) into our module."""
    tg = lib.tg
    state = {}
    for k, v in theirs.state_dict().items():
        a = v.detach().numpy()
        state[k] = tg.tensor(a, dtype=tg.int64 if a.dtype == np.int64 else tg.float64)
    ours.load_state_dict(state)


def _compare(lib, ours, theirs, x, rtol=1e-10, atol=1e-12):
    """Forward and the gradients of <out, v> w.r.t. the input and the parameters."""
    tg = lib.tg
    xo = tg.tensor(x, dtype=tg.float64, requires_grad=True)
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    yo, yt = ours(xo), theirs(xt)
    np.testing.assert_allclose(to_numpy(yo), to_numpy(yt), rtol=rtol, atol=atol)
    v = _rng(99).normal(size=tuple(yt.shape))
    (yo * tg.tensor(v, dtype=tg.float64)).sum().backward()
    (yt * torch.tensor(v, dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(to_numpy(xo.grad), xt.grad.detach().numpy(), rtol=rtol, atol=atol)
    po, pt = dict(ours.named_parameters()), dict(theirs.named_parameters())
    assert sorted(po) == sorted(pt)
    for name, p in pt.items():
        np.testing.assert_allclose(to_numpy(po[name].grad), p.grad.detach().numpy(), rtol=rtol,
                                   atol=atol, err_msg=name)


# -- convolutions ------------------------------------------------------------------------------

CONV2D = [
    {"args": (3, 4, 3)},
    {"args": (3, 4, 3), "kwargs": {"padding": 1}},
    {"args": (3, 6, (3, 2)), "kwargs": {"stride": (2, 1), "padding": (1, 0)}},
    {"args": (2, 4, 3), "kwargs": {"dilation": 2, "padding": 2, "bias": False}},
    {"args": (4, 6, 3), "kwargs": {"groups": 2, "padding": 1}},
    {"args": (3, 5, 4), "kwargs": {"padding": "same"}},
    {"args": (3, 5, 3), "kwargs": {"padding": "valid"}},
    {"args": (3, 3, 1)},
]


@pytest.mark.parametrize("case", range(len(CONV2D)))
def test_conv2d_matches_torch(lib, case):
    spec = CONV2D[case]
    args, kwargs = spec["args"], spec.get("kwargs", {})
    ours = lib.nn.Conv2d(*args, dtype=lib.tg.float64, **kwargs)
    theirs = torch.nn.Conv2d(*args, dtype=torch.float64, **kwargs)
    _load_from_torch(lib, ours, theirs)
    _compare(lib, ours, theirs, _rng().normal(size=(2, args[0], 7, 6)))


def test_conv2d_unbatched(lib):
    ours = lib.nn.Conv2d(2, 3, 3, padding=1, dtype=lib.tg.float64)
    theirs = torch.nn.Conv2d(2, 3, 3, padding=1, dtype=torch.float64)
    _load_from_torch(lib, ours, theirs)
    _compare(lib, ours, theirs, _rng().normal(size=(2, 5, 5)))


CONV1D = [
    {"args": (3, 4, 3)},
    {"args": (3, 4, 5), "kwargs": {"stride": 2, "padding": 2}},
    {"args": (4, 4, 3), "kwargs": {"groups": 4, "dilation": 2, "bias": False}},
    {"args": (2, 3, 4), "kwargs": {"padding": "same"}},
]


@pytest.mark.parametrize("case", range(len(CONV1D)))
def test_conv1d_matches_torch(lib, case):
    spec = CONV1D[case]
    args, kwargs = spec["args"], spec.get("kwargs", {})
    ours = lib.nn.Conv1d(*args, dtype=lib.tg.float64, **kwargs)
    theirs = torch.nn.Conv1d(*args, dtype=torch.float64, **kwargs)
    _load_from_torch(lib, ours, theirs)
    _compare(lib, ours, theirs, _rng(1).normal(size=(3, args[0], 11)))


@pytest.mark.parametrize("cls,args,fan_in", [("Conv2d", (3, 8, (3, 2)), 18),
                                             ("Conv2d", (4, 8, 3, 1, 0, 1, 2), 18),
                                             ("Conv1d", (5, 7, 4), 20)])
def test_conv_init_bounds(lib, cls, args, fan_in):
    """torch's init: weight and bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    lib.tg.manual_seed(0)
    m = getattr(lib.nn, cls)(*args)
    bound = 1.0 / math.sqrt(fan_in)
    t = getattr(torch.nn, cls)(*args)
    assert tuple(m.weight.shape) == tuple(t.weight.shape)
    assert tuple(m.bias.shape) == tuple(t.bias.shape)
    for p in (m.weight, m.bias):
        a = to_numpy(p)
        assert p.requires_grad and p.dtype == lib.tg.float32
        assert np.abs(a).max() <= bound + 1e-7
        assert a.std() > 0.2 * bound  # spread over the interval, not a constant
    w = to_numpy(m.weight).copy()  # (a view of the parameter otherwise)
    assert np.abs(w).max() > 0.8 * bound  # the whole interval, not a narrower one
    m.reset_parameters()
    assert not np.array_equal(to_numpy(m.weight), w)


def test_conv_same_seed_same_weights(engine):
    """Init comes from the engine's generator (manual_seed), as Linear."""
    nn = nn_of(engine).nn
    engine.manual_seed(3)
    a = to_numpy(nn.Conv2d(2, 4, 3).weight).copy()
    engine.manual_seed(3)
    b = to_numpy(nn.Conv2d(2, 4, 3).weight)
    np.testing.assert_array_equal(a, b)


def test_conv_repr_matches_torch(lib):
    for args, kwargs in [((1, 8, 3), {"padding": 1}), ((4, 8, (3, 2)), {"stride": 2,
                         "dilation": (1, 2), "groups": 2, "bias": False}),
                        ((2, 2, 3), {"padding": "same"})]:
        assert repr(lib.nn.Conv2d(*args, **kwargs)) == repr(torch.nn.Conv2d(*args, **kwargs))
    assert repr(lib.nn.Conv1d(2, 3, 5, stride=2)) == repr(torch.nn.Conv1d(2, 3, 5, stride=2))


def test_conv_argument_errors(lib):
    with pytest.raises(ValueError, match="groups"):
        lib.nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="same"):
        lib.nn.Conv2d(3, 4, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="padding"):
        lib.nn.Conv2d(3, 4, 3, padding="full")
    with pytest.raises(ValueError, match="padding_mode must be one of"):  # torch's words
        lib.nn.Conv2d(3, 4, 3, padding_mode="mirror")


# -- pooling -----------------------------------------------------------------------------------

POOLS = [
    ("MaxPool2d", (2,), {}),
    ("MaxPool2d", (3,), {"stride": 2, "padding": 1}),
    ("MaxPool2d", ((2, 3),), {"stride": 1, "dilation": (2, 1)}),
    ("AvgPool2d", (2,), {}),
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1}),
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1, "count_include_pad": False}),
    ("AvgPool2d", (2,), {"divisor_override": 3}),
    ("AdaptiveAvgPool2d", (1,), {}),
    ("AdaptiveAvgPool2d", ((3, 2),), {}),
    ("AdaptiveAvgPool2d", ((None, 4),), {}),
]


@pytest.mark.parametrize("case", range(len(POOLS)))
def test_pooling_matches_torch(lib, case):
    cls, args, kwargs = POOLS[case]
    ours, theirs = getattr(lib.nn, cls)(*args, **kwargs), getattr(torch.nn, cls)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    _compare(lib, ours, theirs, _rng(2).normal(size=(2, 3, 7, 8)))


def test_max_pool_return_indices(lib):
    x = _rng(3).normal(size=(2, 3, 6, 6))
    v, i = lib.nn.MaxPool2d(2, return_indices=True)(lib.tg.tensor(x, dtype=lib.tg.float64))
    tv, ti = torch.nn.MaxPool2d(2, return_indices=True)(torch.tensor(x))
    np.testing.assert_allclose(to_numpy(v), tv.detach().numpy())
    np.testing.assert_array_equal(to_numpy(i), ti.detach().numpy())


# -- functional --------------------------------------------------------------------------------


def test_functional_matches_torch(lib):
    tg, F = lib.tg, lib.F
    r = _rng(4)
    x, w, b = r.normal(size=(2, 4, 6, 6)), r.normal(size=(6, 2, 3, 3)), r.normal(size=6)
    x1, w1 = r.normal(size=(2, 4, 9)), r.normal(size=(3, 4, 2))
    w2 = r.normal(size=(3, 4, 2, 2))  # an even kernel: "same" pads one side more
    def T(a):
        return tg.tensor(a, dtype=tg.float64)
    t = torch.tensor
    cases = [
        (F.conv2d(T(x), T(w), T(b), stride=2, padding=1, groups=2),
         TF.conv2d(t(x), t(w), t(b), stride=2, padding=1, groups=2)),
        (F.conv2d(T(x), T(w2), padding="same"), TF.conv2d(t(x), t(w2), padding="same")),
        (F.conv1d(T(x1), T(w1), None, 1, 1, 2), TF.conv1d(t(x1), t(w1), None, 1, 1, 2)),
        (F.max_pool2d(T(x), 3, 2, 1), TF.max_pool2d(t(x), 3, 2, 1)),
        (F.avg_pool2d(T(x), 2), TF.avg_pool2d(t(x), 2)),
        (F.adaptive_avg_pool2d(T(x), (2, 3)), TF.adaptive_avg_pool2d(t(x), (2, 3))),
    ]
    for k, (ours, theirs) in enumerate(cases):
        np.testing.assert_allclose(to_numpy(ours), theirs.detach().numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=str(k))
    rm, rv = T(np.zeros(4)), T(np.ones(4))
    trm, trv = t(np.zeros(4)), t(np.ones(4))
    y = F.batch_norm(T(x), rm, rv, T(b[:4]), T(w[:4, 0, 0, 0]), True, 0.3, 1e-3)
    ty = TF.batch_norm(t(x), trm, trv, t(b[:4]), t(w[:4, 0, 0, 0]), True, 0.3, 1e-3)
    np.testing.assert_allclose(to_numpy(y), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_numpy(rm), trm.detach().numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(to_numpy(rv), trv.detach().numpy(), rtol=1e-12, atol=1e-14)
    y = F.batch_norm(T(x), rm, rv, training=False)
    np.testing.assert_allclose(to_numpy(y), TF.batch_norm(t(x), trm, trv).detach().numpy(),
                               rtol=1e-10,
                               atol=1e-12)
    with pytest.raises(ValueError, match="running_mean"):
        F.batch_norm(T(x), None, None)


# -- batch norm --------------------------------------------------------------------------------

BATCHNORMS = [
    ("BatchNorm2d", (2, 3, 4, 5), {}),
    ("BatchNorm2d", (4, 3, 2, 2), {"momentum": 0.5, "eps": 1e-3}),
    ("BatchNorm2d", (2, 3, 4, 4), {"momentum": None}),
    ("BatchNorm2d", (2, 3, 4, 4), {"affine": False}),
    ("BatchNorm2d", (2, 3, 4, 4), {"track_running_stats": False}),
    ("BatchNorm1d", (8, 5), {}),
    ("BatchNorm1d", (4, 5, 6), {"momentum": 0.2}),
    ("BatchNorm1d", (6, 3), {"bias": False}),
]


@pytest.mark.parametrize("case", range(len(BATCHNORMS)))
def test_batch_norm_matches_torch(lib, case):
    """A few training steps (forward, backward, an SGD step on the affine parameters), then
    eval: outputs, gradients, running statistics and num_batches_tracked equal torch's."""
    cls, shape, kwargs = BATCHNORMS[case]
    c = shape[1]
    ours = getattr(lib.nn, cls)(c, dtype=lib.tg.float64, **kwargs)
    theirs = getattr(torch.nn, cls)(c, dtype=torch.float64, **kwargs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    if kwargs.get("affine", True):  # non-trivial affine parameters
        r = _rng(5)
        with torch.no_grad():
            theirs.weight.copy_(torch.tensor(r.uniform(0.5, 1.5, c)))
            if theirs.bias is not None:
                theirs.bias.copy_(torch.tensor(r.normal(size=c)))
    _load_from_torch(lib, ours, theirs)
    opt_o = lib.optim.SGD(ours.parameters(), lr=0.1) if kwargs.get("affine", True) else None
    opt_t = torch.optim.SGD(theirs.parameters(), lr=0.1) if opt_o else None
    for step in range(4):
        x = _rng(10 + step).normal(loc=step, scale=1 + step, size=shape)
        _compare(lib, ours, theirs, x)
        if opt_o:
            opt_o.step()
            opt_t.step()
            opt_o.zero_grad()
            opt_t.zero_grad()
        for name, buf in theirs.named_buffers():
            np.testing.assert_allclose(to_numpy(getattr(ours, name)), buf.detach().numpy(),
                                       rtol=1e-12,
                                       atol=1e-14, err_msg=f"{name} after step {step}")
    if kwargs.get("track_running_stats", True):
        assert int(ours.num_batches_tracked.item()) == 4
        assert ours.num_batches_tracked.dtype == lib.tg.int64
    ours.eval()
    theirs.eval()
    x = _rng(20).normal(size=shape)
    _compare(lib, ours, theirs, x)
    for name, buf in theirs.named_buffers():  # eval leaves the running statistics alone
        np.testing.assert_allclose(to_numpy(getattr(ours, name)), buf.detach().numpy(), rtol=1e-12,
                                   atol=1e-14)


@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_double_backward_matches_torch(lib, affine):
    """Training batch norm differentiated twice (Note [Fused batch_norm]): the gradient of a
    function of the first gradients equals torch's for the input and the affine parameters."""
    tg, F = lib.tg, lib.nn.functional
    r = _rng(7)
    x, v = r.normal(size=(3, 2, 4, 3)), r.normal(size=(3, 2, 4, 3))
    w, b = r.uniform(0.5, 1.5, 2), r.normal(size=2)

    def run(m, F, grad, tensor):
        xs = tensor(x, requires_grad=True)
        params = [tensor(w, requires_grad=True), tensor(b, requires_grad=True)] if affine else []
        y = F.batch_norm(xs, tensor(np.zeros(2)), tensor(np.ones(2)), *params, training=True)
        firsts = grad((y * tensor(v)).sum(), [xs] + params, create_graph=True)
        total = sum(((g * g).sum() if i else (g * g * g).sum()) for i, g in enumerate(firsts))
        seconds = grad(total, [xs] + params, allow_unused=True)  # the bias's: unused
        return [np.zeros(2) if s is None else to_numpy(s) for s in seconds]

    ours = run(tg, F, tg.autograd.grad, lambda a, **k: tg.tensor(a, dtype=tg.float64, **k))
    theirs = run(torch, TF, torch.autograd.grad,
                 lambda a, **k: torch.tensor(a, dtype=torch.float64, **k))
    for a, e in zip(ours, theirs):
        np.testing.assert_allclose(a, e, rtol=1e-9, atol=1e-11)


def test_batch_norm_buffers(lib):
    tg, nn = lib.tg, lib.nn
    bn = nn.BatchNorm2d(3)
    assert [n for n, _ in bn.named_parameters()] == ["weight", "bias"]
    assert [n for n, _ in bn.named_buffers()] == ["running_mean", "running_var",
                                                   "num_batches_tracked"]
    np.testing.assert_array_equal(to_numpy(bn.running_mean), np.zeros(3))
    np.testing.assert_array_equal(to_numpy(bn.running_var), np.ones(3))
    assert not bn.running_mean.requires_grad
    bn(tg.tensor(_rng().normal(size=(4, 3, 2, 2)), dtype=tg.float32))
    assert int(bn.num_batches_tracked.item()) == 1
    assert not np.array_equal(to_numpy(bn.running_mean), np.zeros(3))
    # state_dict has the buffers; load_state_dict writes them in place
    other = nn.BatchNorm2d(3)
    other.load_state_dict(bn.state_dict())
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        np.testing.assert_array_equal(to_numpy(getattr(other, name)),
                                      to_numpy(getattr(bn, name)))
    bn.reset_running_stats()
    np.testing.assert_array_equal(to_numpy(bn.running_var), np.ones(3))
    assert int(bn.num_batches_tracked.item()) == 0
    bn.double()
    assert bn.running_mean.dtype == tg.float64 and bn.num_batches_tracked.dtype == tg.int64
    nb = nn.BatchNorm1d(3, affine=False, track_running_stats=False)
    assert list(nb.state_dict()) == [] and list(nb.parameters()) == []


def test_batch_norm_input_checks(lib):
    tg, nn = lib.tg, lib.nn
    with pytest.raises(ValueError, match="4D"):
        nn.BatchNorm2d(3)(tg.zeros(2, 3, 4))
    with pytest.raises(ValueError, match="2D or 3D"):
        nn.BatchNorm1d(3)(tg.zeros(2, 3, 4, 4))
    with pytest.raises(RuntimeError, match="running_mean should contain 4 elements not 3"):
        nn.BatchNorm1d(3)(tg.zeros(2, 4))
    with pytest.raises(ValueError, match="more than 1 value"):
        nn.BatchNorm1d(3)(tg.zeros(1, 3))


def test_batch_norm_eval_no_grad_keeps_stats(lib):
    tg, nn = lib.tg, lib.nn
    bn = nn.BatchNorm1d(2)
    bn.eval()
    with tg.no_grad():
        y = bn(tg.tensor(np.array([[1.0, 2.0], [3.0, 6.0]]), dtype=tg.float32))
    np.testing.assert_allclose(to_numpy(y), np.array([[1.0, 2.0], [3.0, 6.0]]) / np.sqrt(1 + 1e-5),
                               rtol=1e-6)
    assert int(bn.num_batches_tracked.item()) == 0


# -- a CNN, end to end -------------------------------------------------------------------------


def cnn_data(n=32, seed=6):
    """Two classes of 8x8 images: a bright vertical or horizontal bar, plus noise; a third:
    no bar."""
    r = _rng(seed)
    x = 0.3 * r.normal(size=(n, 1, 8, 8))
    y = r.integers(0, 3, size=n)
    for i in range(n):
        k = r.integers(1, 7)
        if y[i] == 0:
            x[i, 0, :, k] += 1.5
        elif y[i] == 1:
            x[i, 0, k, :] += 1.5
    return x, y.astype(np.int64)


def make_cnn(nn, dt):
    # no conv bias before batch norm: its gradient is zero up to rounding, which Adam would
    # blow up to full steps (then the running mean, not the loss, depends on rounding)
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1, bias=False, dtype=dt),
                         nn.BatchNorm2d(4, dtype=dt),
                         nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 6, 3, dtype=dt), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(6, 3, dtype=dt))


def cnn_state(seed=7):
    """Float64 weights for make_cnn (from torch's module of the same shape, seeded)."""
    torch.manual_seed(seed)
    m = make_cnn(torch.nn, torch.float64)
    return {k: v.detach().numpy().copy() for k, v in m.state_dict().items()}


def train_cnn(lib, steps=15):
    tg, nn, F = lib.tg, lib.nn, lib.F
    x, y = cnn_data()
    model = make_cnn(nn, tg.float64)
    model.load_state_dict({k: tg.tensor(v, dtype=tg.int64 if v.dtype == np.int64
                                        else tg.float64) for k, v in cnn_state().items()})
    opt = lib.optim.Adam(model.parameters(), lr=0.05)
    xt, yt = tg.tensor(x, dtype=tg.float64), tg.tensor(y, dtype=tg.int64)
    losses = []
    for _ in range(steps):
        loss = F.cross_entropy(model(xt), yt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with tg.no_grad():
        losses.append(F.cross_entropy(model(xt), yt).item())  # with the running statistics
    stats = np.concatenate([to_numpy(model[1].running_mean), to_numpy(model[1].running_var)])
    return np.array(losses), stats


def test_cnn_loss_falls(lib):
    losses, _ = train_cnn(lib)
    assert np.all(np.isfinite(losses))
    assert losses[-2] < 0.3 * losses[0], losses


def test_cnn_engines_agree_step_by_step():
    ref, ref_stats = train_cnn(nn_of(load_engine("reference")))
    comp, comp_stats = train_cnn(nn_of(load_engine("compiled")))
    np.testing.assert_allclose(comp, ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(comp_stats, ref_stats, rtol=1e-9, atol=1e-12)


def test_cnn_matches_torch(lib):
    import types

    tl = types.SimpleNamespace(tg=torch, nn=torch.nn, F=TF, optim=torch.optim)
    expected, expected_stats = train_cnn(tl)
    got, got_stats = train_cnn(lib)
    np.testing.assert_allclose(got, expected, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(got_stats, expected_stats, rtol=1e-8, atol=1e-10)


@pytest.mark.slow
def test_cnn_digits_example(engine):
    pytest.importorskip("sklearn")
    import cnn_digits

    name = "reference" if engine.__name__.startswith("transgrad.reference") else "compiled"
    r = cnn_digits.train(name, epochs=4, quiet=True)
    assert r["accuracy"] > 0.85, r  # 92.0% on both engines (15 epochs, the default: 95.5%)
