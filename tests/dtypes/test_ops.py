"""Op families on the new dtypes, both engines, against torch (optional) and numpy: creation,
arithmetic and comparisons (with torch's promotion and integer wrapping), float16/bfloat16
computed in float32 and rounded back, reductions, matmul, shape/index moves, printing, errors."""

import ml_dtypes
import numpy as np
import pytest

INTS = ["uint8", "int8", "int16", "int32"]
HALVES = ["float16", "bfloat16"]


def _np(t):
    return np.asarray(t)


def _same(ours, theirs):
    """Same dtype name and the same values, bit for bit (NaN equal)."""
    torch = pytest.importorskip("torch")
    assert ours.dtype.name == str(theirs.dtype).replace("torch.", "")
    a = _np(ours).astype(np.float64)
    b = theirs.to(torch.float64).numpy()
    assert np.array_equal(a, b, equal_nan=True), (a, b)


def _pair(engine, torch, values, name):
    return (engine.tensor(values, dtype=getattr(engine, name)),
            torch.tensor(values, dtype=getattr(torch, name)))


@pytest.mark.parametrize("name", INTS + HALVES)
def test_creation(engine, name):
    d = getattr(engine, name)
    assert _np(engine.zeros(2, 3, dtype=d)).tolist() == [[0] * 3] * 2
    assert _np(engine.ones(2, dtype=d)).astype(float).tolist() == [1.0, 1.0]
    assert _np(engine.full((2,), 7, dtype=d)).astype(float).tolist() == [7.0, 7.0]
    assert _np(engine.arange(4, dtype=d)).astype(float).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert engine.empty(3, dtype=d).dtype == d
    t = engine.tensor([1, 2], dtype=d)
    assert t.dtype == d and t[1].item() == 2 and type(t[1].item()) is (
        float if name in HALVES else int)


@pytest.mark.parametrize("name", INTS + HALVES)
def test_numpy_round_trip_shares_memory(engine, name):
    npd = ml_dtypes.bfloat16 if name == "bfloat16" else np.dtype(name)
    a = np.arange(6).astype(npd).reshape(2, 3)
    t = engine.from_numpy(a)
    assert t.dtype == np.dtype(npd)
    back = t.numpy()
    assert back.dtype == np.dtype(npd) and np.shares_memory(back, a)
    assert np.array_equal(np.asarray(t), a)


@pytest.mark.parametrize("a,b", [(x, y) for x in INTS + HALVES + ["int64", "float32", "bool"]
                                 for y in INTS + HALVES + ["int64", "float32", "bool"]])
def test_binary_arithmetic_against_torch(engine, a, b):
    torch = pytest.importorskip("torch")
    va, vb = [1, 100, 7, 0, 3], [2, 100, 3, 1, 1]
    x, tx = _pair(engine, torch, va, a)
    y, ty = _pair(engine, torch, vb, b)
    _same(x + y, tx + ty)
    _same(x * y, tx * ty)
    _same(engine.maximum(x, y), torch.maximum(tx, ty))
    _same(x < y, tx < ty)
    _same(x == y, tx == ty)
    if "bool" not in (a, b):
        _same(x - y, tx - ty)


@pytest.mark.parametrize("name", INTS + HALVES)
def test_python_scalars_are_weak(engine, name):
    torch = pytest.importorskip("torch")
    x, tx = _pair(engine, torch, [1, 2, 100], name)
    _same(x + 5, tx + 5)
    _same(x * 3, tx * 3)
    _same(2 - x, 2 - tx)
    if name in HALVES:
        _same(x * 2.5, tx * 2.5)


def test_integer_overflow_wraps_as_torch(engine):
    torch = pytest.importorskip("torch")
    for name in INTS:
        info = np.iinfo(name)
        x, tx = _pair(engine, torch, [info.max, info.min, 1], name)
        _same(x + x, tx + tx)
        _same(x * x, tx * tx)


@pytest.mark.parametrize("name", HALVES)
def test_half_unary_computed_in_float32_and_rounded(engine, name):
    torch = pytest.importorskip("torch")
    vals = [0.1, 1.5, -2.25, 3.0, 10.0, 0.0]
    x, tx = _pair(engine, torch, vals, name)
    for fn in ("exp", "sin", "tanh", "sigmoid", "abs", "neg", "relu"):
        ours, theirs = getattr(engine, fn)(x), getattr(torch, fn)(tx)
        assert ours.dtype.name == name
        # torch's vectorised half kernels may differ from a correctly rounded float32 result by
        # one unit in the last place: compare at the dtype's resolution
        tol = float(torch.finfo(getattr(torch, name)).eps)
        np.testing.assert_allclose(_np(ours).astype(np.float64),
                                   theirs.double().numpy(), rtol=tol, atol=tol)
    y = engine.sqrt(engine.abs(x))
    expect = np.sqrt(np.abs(_np(x).astype(np.float32))).astype(_np(x).dtype)
    assert np.array_equal(_np(y).view(np.uint16), expect.view(np.uint16))


@pytest.mark.parametrize("name", INTS + HALVES)
def test_reductions(engine, name):
    torch = pytest.importorskip("torch")
    vals = [[1, 2, 3], [4, 5, 100]]
    x, tx = _pair(engine, torch, vals, name)
    _same(x.sum(), tx.sum())
    _same(x.sum(1), tx.sum(1))
    _same(x.amax(0), tx.amax(0))
    if name in HALVES:
        _same(x.mean(), tx.mean())
        _same(engine.cumsum(x, 1), torch.cumsum(tx, 1))


@pytest.mark.parametrize("name", HALVES)
def test_matmul_through_float32(engine, name):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((5, 3))
    x, tx = _pair(engine, torch, a.tolist(), name)
    y, ty = _pair(engine, torch, b.tolist(), name)
    out = x @ y
    assert out.dtype.name == name
    exact = (_np(x).astype(np.float32) @ _np(y).astype(np.float32)).astype(_np(x).dtype)
    assert np.array_equal(_np(out).view(np.uint16), exact.view(np.uint16))
    np.testing.assert_allclose(_np(out).astype(np.float64), (tx @ ty).double().numpy(),
                               rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("name", INTS + HALVES)
def test_moves(engine, name):
    """Views, copies, cat/stack, where, indexing: byte moves that keep the dtype."""
    torch = pytest.importorskip("torch")
    vals = [[1, 2, 3], [4, 5, 6]]
    x, tx = _pair(engine, torch, vals, name)
    _same(x.t().contiguous(), tx.t().contiguous())
    _same(x[:, 1], tx[:, 1])
    _same(x[1], tx[1])
    _same(x.reshape(3, 2), tx.reshape(3, 2))
    _same(engine.cat([x, x], 0), torch.cat([tx, tx], 0))
    _same(engine.stack([x, x], 1), torch.stack([tx, tx], 1))
    c = engine.tensor([[True, False, True], [False, True, False]])
    tc = torch.tensor([[True, False, True], [False, True, False]])
    _same(engine.where(c, x, x * 2), torch.where(tc, tx, tx * 2))
    _same(x.clone(), tx.clone())


@pytest.mark.parametrize("name", INTS + HALVES)
def test_repr_is_torchs(engine, name):
    torch = pytest.importorskip("torch")
    vals = [1.5, 2.0, -3.0] if name in HALVES else [1, 2, 3]
    if name == "uint8":
        vals = [1, 2, 255]
    x, tx = _pair(engine, torch, vals, name)
    assert repr(x) == repr(tx)  # torch's printed form, dtype=torch.<name> included


def test_integer_tensors_refuse_requires_grad(engine):
    for name in INTS + ["int64", "bool"]:
        with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex "
                                               "dtype can require gradients"):
            engine.zeros(2, dtype=getattr(engine, name), requires_grad=True)


def test_unsupported_kernel_is_a_clear_error_not_a_wrong_answer(compiled):
    """A compiled kernel without a float16 loop raises torch's words (Note [Storage dtypes])."""
    x = compiled.ones(3, 3, dtype=compiled.float16)
    with pytest.raises(TypeError, match="not implemented for 'Half'"):
        compiled.nan_to_num(x)


@pytest.mark.parametrize("name", ["uint8", "int16", "float16", "bfloat16"])
def test_sort_index_and_image_kernels(engine, name):
    """The kernels a uint8 image or a half activation meets: sort/topk/flip/tril, gather and
    masked selection (byte moves), max over a dim, softmax, pooling and conv (half in float32)."""
    torch = pytest.importorskip("torch")
    vals = [[3, 1, 2], [9, 8, 7]]
    x, tx = _pair(engine, torch, vals, name)
    _same(x.sort(1).values, tx.sort(1).values)
    assert np.asarray(x.sort(1).indices).tolist() == tx.sort(1).indices.tolist()
    _same(engine.topk(x, 2).values, torch.topk(tx, 2).values)
    _same(engine.flip(x, [1]), torch.flip(tx, [1]))
    _same(x.tril(), tx.tril())
    _same(x.max(1).values, tx.max(1).values)
    idx = engine.tensor([[0], [2]])
    _same(engine.gather(x, 1, idx), torch.gather(tx, 1, torch.tensor([[0], [2]])))
    _same(x[x > 2], tx[tx > 2])
    _same(x[engine.tensor([1, 0])], tx[torch.tensor([1, 0])])
    if name in ("float16", "bfloat16"):
        _same(engine.softmax(x, 1), torch.softmax(tx, 1))
        img = engine.arange(16.0).reshape(1, 1, 4, 4).to(getattr(engine, name))
        timg = torch.arange(16.0).reshape(1, 1, 4, 4).to(getattr(torch, name))
        _same(engine.nn.functional.max_pool2d(img, 2), torch.nn.functional.max_pool2d(timg, 2))
        w = engine.ones(1, 1, 2, 2, dtype=getattr(engine, name))
        tw = torch.ones(1, 1, 2, 2, dtype=getattr(torch, name))
        _same(engine.nn.functional.conv2d(img, w), torch.nn.functional.conv2d(timg, tw))


@pytest.mark.parametrize("name", HALVES)
def test_adaptive_avg_pool_in_half(engine, name):
    torch = pytest.importorskip("torch")
    img = engine.arange(36.0).reshape(1, 1, 6, 6).to(getattr(engine, name))
    timg = torch.arange(36.0).reshape(1, 1, 6, 6).to(getattr(torch, name))
    ours = engine.nn.functional.adaptive_avg_pool2d(img, (2, 3))
    theirs = torch.nn.functional.adaptive_avg_pool2d(timg, (2, 3))
    assert ours.dtype.name == name
    np.testing.assert_allclose(np.asarray(ours).astype(np.float64), theirs.double().numpy(),
                               rtol=1e-2)
