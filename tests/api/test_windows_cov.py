"""Window functions, cov/corrcoef, empty_strided and the *_like keywords on both engines: values
against torch, gradients by gradcheck/gradgradcheck, torch's errors."""

import warnings

import numpy as np
import pytest

WINDOWS = ("hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window")


def npy(t):
    return t.detach().numpy()


@pytest.mark.parametrize("name", WINDOWS)
def test_windows_against_torch(engine, name):
    torch = pytest.importorskip("torch")
    for n in (0, 1, 2, 3, 8, 17):
        for periodic in (True, False):
            for dt in ("float64", "float32"):
                mine = getattr(engine, name)(n, periodic, dtype=getattr(engine, dt))
                theirs = getattr(torch, name)(n, periodic, dtype=getattr(torch, dt))
                assert str(mine.dtype) == str(theirs.dtype)
                np.testing.assert_allclose(npy(mine), theirs.numpy(), rtol=1e-6, atol=1e-6,
                                           err_msg=f"{name}({n}, {periodic}, {dt})")
    default = getattr(engine, name)(5)
    assert default.dtype == engine.float32 and not default.requires_grad
    np.testing.assert_allclose(npy(default), getattr(torch, name)(5).numpy(), atol=1e-6)
    assert getattr(engine, name)(4, requires_grad=True, dtype=engine.float64).requires_grad


def test_window_parameters_against_torch(engine):
    torch = pytest.importorskip("torch")
    for a, b in ((0.5, 0.5), (0.54, 0.46), (0.3, 0.7)):
        np.testing.assert_allclose(
            npy(engine.hamming_window(9, False, a, b, dtype=engine.float64)),
            torch.hamming_window(9, False, a, b, dtype=torch.float64).numpy(), rtol=1e-12)
    for beta in (0.0, 1.5, 8.0, 12.0):
        for periodic in (True, False):
            np.testing.assert_allclose(
                npy(engine.kaiser_window(10, periodic, beta, dtype=engine.float64)),
                torch.kaiser_window(10, periodic, beta, dtype=torch.float64).numpy(),
                rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(npy(engine.hann_window(9, dtype=engine.float64)),
                               npy(engine.hamming_window(9, alpha=0.5, beta=0.5,
                                                         dtype=engine.float64)))


@pytest.mark.parametrize("name", WINDOWS)
def test_window_errors_are_torchs(engine, name):
    torch = pytest.importorskip("torch")
    for args, kwargs in (((-1,), {}), ((3,), {"dtype": "int64"})):
        mine_kwargs = {k: getattr(engine, v) for k, v in kwargs.items()}
        theirs_kwargs = {k: getattr(torch, v) for k, v in kwargs.items()}
        with pytest.raises(RuntimeError) as theirs:
            getattr(torch, name)(*args, **theirs_kwargs)
        with pytest.raises(RuntimeError) as mine:
            getattr(engine, name)(*args, **mine_kwargs)
        want = str(theirs.value).split("TensorOptions(dtype=")[0]
        assert str(mine.value).startswith(want)


# ---------------------------------------------------------------------------------------------
# cov and corrcoef

X = np.array([[0.5, -1.0, 2.0, 0.25, 3.0], [1.5, 0.5, -2.0, 1.0, 0.0], [0.1, 0.2, 0.3, 0.5, -1]])
FW = np.array([1, 2, 0, 3, 1])
AW = np.array([0.5, 1.0, 2.0, 0.25, 1.5])


def _cov_cases(lib):
    x = lib.from_numpy(X.copy())
    fw, aw = lib.from_numpy(FW.copy()), lib.from_numpy(AW.copy())
    return [lib.cov(x), lib.cov(x, correction=0), lib.cov(x, correction=2),
            lib.cov(x, fweights=fw), lib.cov(x, aweights=aw),
            lib.cov(x, fweights=fw, aweights=aw), lib.cov(x, correction=0, aweights=aw),
            lib.cov(x[0]), lib.cov(x[:2].T), x.cov(), lib.corrcoef(x), x.corrcoef(),
            lib.corrcoef(x[1]), lib.cov(lib.from_numpy(np.arange(12).reshape(3, 4))),
            lib.corrcoef(lib.from_numpy(np.arange(12).reshape(3, 4)))]


def test_cov_corrcoef_against_torch(engine):
    torch = pytest.importorskip("torch")
    for i, (mine, theirs) in enumerate(zip(_cov_cases(engine), _cov_cases(torch))):
        assert tuple(mine.shape) == tuple(theirs.shape), i
        assert str(mine.dtype) == str(theirs.dtype), i
        np.testing.assert_allclose(npy(mine), theirs.numpy(), rtol=1e-6, atol=1e-6,
                                   err_msg=str(i))


def test_cov_without_degrees_of_freedom_warns_as_torch(engine):
    torch = pytest.importorskip("torch")
    for lib in (engine, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.cov(lib.from_numpy(X[:2].copy()), correction=5)
        assert any("degrees of freedom is <= 0" in str(w.message) for w in caught)
        assert np.all(np.isinf(npy(out)))


def test_cov_corrcoef_gradients(engine):
    tg = engine
    x = tg.from_numpy(X.copy()).requires_grad_()
    aw = tg.from_numpy(AW.copy()).requires_grad_()
    fw = tg.from_numpy(FW.copy())
    assert tg.autograd.gradcheck(lambda t: tg.cov(t), (x,))
    assert tg.autograd.gradgradcheck(lambda t: tg.cov(t, correction=0), (x,))
    assert tg.autograd.gradcheck(lambda t, w: tg.cov(t, fweights=fw, aweights=w), (x, aw))
    assert tg.autograd.gradgradcheck(lambda t, w: tg.cov(t, aweights=w), (x, aw))
    assert tg.autograd.gradcheck(lambda t: tg.corrcoef(t), (x,))
    assert tg.autograd.gradgradcheck(lambda t: tg.corrcoef(t), (x,))


def test_cov_gradients_against_torch(engine):
    torch = pytest.importorskip("torch")
    grads = []
    for lib in (engine, torch):
        x = lib.from_numpy(X.copy()).requires_grad_()
        aw = lib.from_numpy(AW.copy()).requires_grad_()
        out = (lib.cov(x, aweights=aw, fweights=lib.from_numpy(FW.copy())) ** 2).sum() \
            + lib.corrcoef(x).sum()
        out.backward()
        grads.append((npy(x.grad), npy(aw.grad)))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def _cov_errors(lib):
    x = lib.ones(2, 3)
    return [lambda: lib.cov(lib.ones(2, 2, 2)),
            lambda: lib.cov(x, fweights=lib.ones(2, 3, dtype=lib.int64)),
            lambda: lib.cov(x, fweights=lib.ones(3)),
            lambda: lib.cov(x, fweights=lib.ones(2, dtype=lib.int64)),
            lambda: lib.cov(x, fweights=-lib.ones(3, dtype=lib.int64)),
            lambda: lib.cov(x, aweights=lib.ones(3, dtype=lib.int64)),
            lambda: lib.cov(x, aweights=-lib.ones(3)),
            lambda: lib.cov(x, aweights=lib.ones(2)),
            lambda: lib.cov(x, aweights=lib.ones(2, 3))]


def test_cov_errors_are_torchs(engine):
    torch = pytest.importorskip("torch")
    for i, (mine, theirs) in enumerate(zip(_cov_errors(engine), _cov_errors(torch))):
        with pytest.raises(RuntimeError) as want:
            theirs()
        with pytest.raises(RuntimeError) as got:
            mine()
        assert str(got.value) == str(want.value), i


# ---------------------------------------------------------------------------------------------
# empty_strided, new_empty_strided, the *_like keywords


def test_empty_strided_against_torch(engine):
    torch = pytest.importorskip("torch")
    for size, stride in (((2, 3), (1, 2)), ((2, 3), (3, 1)), ((4,), (2,)), ((2, 0, 3), (1, 1, 1)),
                         ((), ()), ((3, 2), (0, 1))):
        mine = engine.empty_strided(size, stride)
        theirs = torch.empty_strided(size, stride)
        assert tuple(mine.shape) == tuple(theirs.shape)
        assert mine.stride() == theirs.stride(), (size, stride)
        assert mine.dtype == engine.float32
    t = engine.empty_strided((2, 2), (1, 2), dtype=engine.float64, requires_grad=True)
    assert t.dtype == engine.float64 and t.requires_grad and t.is_leaf
    m = engine.ones(3, dtype=engine.int64).new_empty_strided((2, 3), (1, 2))
    assert m.dtype == engine.int64 and m.stride() == (1, 2)
    with pytest.raises(RuntimeError, match=r"dimensionality of sizes \(2\) must match "
                                           r"dimensionality of strides \(1\)"):
        engine.empty_strided((2, 3), (1,))


def test_like_factories_take_torchs_keywords(engine):
    torch = pytest.importorskip("torch")
    for lib in (engine, torch):
        x = lib.ones(2, 3, dtype=lib.float64)
        for made in (lib.empty_like(x, memory_format=lib.preserve_format),
                     lib.zeros_like(x, layout=lib.strided, pin_memory=False),
                     lib.ones_like(x, memory_format=lib.contiguous_format),
                     lib.full_like(x, 2.5, dtype=lib.float32, layout=lib.strided)):
            assert tuple(made.shape) == (2, 3)
        np.testing.assert_array_equal(np.asarray(lib.full_like(x, 2.5, layout=lib.strided)),
                                      np.full((2, 3), 2.5))
