"""The PyTorch-style API (transgrad._api) on both engines: creation, dtypes, functions, methods,
operators and the scalar rule, shapes, reductions; values compared with numpy."""

import numpy as np
import pytest

RNG = np.random.default_rng(0)


def arr(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------------------------------------
# creation and dtypes


def test_tensor_copies_and_from_numpy_shares(engine):
    tg = engine
    a = np.arange(6.0).reshape(2, 3)
    t = tg.tensor(a)
    s = tg.from_numpy(a)
    a[0, 0] = 100.0
    assert t.detach().numpy()[0, 0] == 0.0 and s.detach().numpy()[0, 0] == 100.0
    assert np.shares_memory(np.asarray(s), a)
    assert np.shares_memory(s.detach().numpy(), np.asarray(s))
    assert t.dtype == tg.float64 == np.float64 and t.shape == (2, 3)


def test_default_dtypes_follow_pytorch(engine):
    tg = engine
    assert tg.tensor([1.0, 2.0]).dtype == tg.float32
    assert tg.tensor([1, 2]).dtype == tg.int64
    assert tg.tensor([True]).dtype == tg.bool
    assert tg.tensor(3.0).shape == ()
    assert tg.zeros(2, 3).dtype == tg.float32 and tg.zeros((2, 3)).shape == (2, 3)
    assert tg.ones(4, dtype=tg.float64).dtype == np.dtype("float64")
    assert tg.arange(5).dtype == tg.int64 and tg.arange(0.0, 1.0, 0.25).shape == (4,)
    assert tg.full((2,), 1.5).dtype == tg.float32 and tg.full((2,), 7).dtype == tg.int64
    assert tg.tensor(np.arange(3, dtype=np.int32)).dtype == tg.int32  # as torch
    assert tg.tensor(np.arange(3, dtype=np.uint32)).dtype == tg.int64  # no uint32 tensors
    with pytest.raises(TypeError, match="uint16"):
        tg.from_numpy(np.arange(3, dtype=np.uint16))


def test_randn_is_seeded(engine):
    tg = engine
    tg.manual_seed(123)
    a = tg.randn(3, 4, dtype=tg.float64).detach().numpy().copy()
    tg.manual_seed(123)
    b = tg.randn(3, 4, dtype=tg.float64).detach().numpy()
    np.testing.assert_array_equal(a, b)
    assert tg.rand(5).detach().numpy().min() >= 0.0


def test_like_factories(engine):
    tg = engine
    x = tg.tensor(arr(2, 3))
    assert tg.zeros_like(x).shape == (2, 3) and tg.ones_like(x).dtype == tg.float64
    np.testing.assert_array_equal(tg.full_like(x, 2.0).detach().numpy(), np.full((2, 3), 2.0))


def test_requires_grad_argument_and_repr(engine):
    tg = engine
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    assert x.requires_grad and x.is_leaf
    assert repr(x) == "tensor([1., 2.], requires_grad=True)"
    assert repr(x * 2) == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    assert repr(tg.tensor([1.0], dtype=tg.float64)) == "tensor([1.], dtype=torch.float64)"
    assert repr(tg.tensor(3)) == "tensor(3)"


def test_item_numpy_len_iter(engine):
    tg = engine
    x = tg.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert len(x) == 2 and [r.tolist() for r in x] == [[1.0, 2.0], [3.0, 4.0]]
    assert x[1, 0].item() == 3.0 and isinstance(x.sum().item(), float)
    assert float(x[0, 1]) == 2.0 and int(tg.tensor(5)) == 5
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        x.item()
    with pytest.raises(TypeError, match="0-d"):
        len(tg.tensor(1.0))
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(x > 0)
    assert x.numel() == 4 and x.numel == 4 and x.dim() == 2 and x.size() == (2, 2)
    assert x.size(1) == 2


# ---------------------------------------------------------------------------------------------
# operators and the scalar rule


def test_operators_match_numpy(engine):
    tg = engine
    a, b = arr(3, 4), arr(4)
    x, y = tg.tensor(a), tg.tensor(b)
    np.testing.assert_allclose((x + y).detach().numpy(), a + b)
    np.testing.assert_allclose((x - y).detach().numpy(), a - b)
    np.testing.assert_allclose((x * y).detach().numpy(), a * b)
    np.testing.assert_allclose((x / y).detach().numpy(), a / b)
    np.testing.assert_allclose((-x).detach().numpy(), -a)
    np.testing.assert_allclose((2.0 - x).detach().numpy(), 2.0 - a)
    np.testing.assert_allclose((2.0 / x).detach().numpy(), 2.0 / a)
    np.testing.assert_allclose((x ** 2).detach().numpy(), a ** 2)
    np.testing.assert_allclose((abs(x) ** y).detach().numpy(), np.abs(a) ** b)
    np.testing.assert_allclose((2.0 ** y).detach().numpy(), 2.0 ** b)
    np.testing.assert_allclose((x @ tg.tensor(arr(4, 2))).shape, (3, 2))
    np.testing.assert_array_equal((x > y).detach().numpy(), a > b)
    np.testing.assert_array_equal((x <= 0).detach().numpy(), a <= 0)
    np.testing.assert_array_equal((x == x).detach().numpy(), np.ones((3, 4), bool))
    np.testing.assert_array_equal((x != 0.0).detach().numpy(), a != 0)
    np.testing.assert_allclose((a + y).detach().numpy(), a + b)  # numpy on the left defers to us


def test_scalar_rule_keeps_dtypes(engine):
    tg = engine
    f32 = tg.ones(2)
    assert (f32 * 2.5).dtype == tg.float32 and (2 + f32).dtype == tg.float32
    i64 = tg.tensor([1, 2])
    assert (i64 + 1).dtype == tg.int64
    assert (i64 * 1.5).dtype == tg.float32  # the default dtype, as torch
    assert (f32 + tg.tensor(1.0, dtype=tg.float64)).dtype == tg.float32  # 0-d: a lower tier
    assert (f32 + tg.tensor([1.0], dtype=tg.float64)).dtype == tg.float64


def test_in_place_arithmetic_under_no_grad(engine):
    tg = engine
    x = tg.ones(3)
    before = x._version
    with tg.no_grad():
        x += 1
        x *= tg.tensor([1.0, 2.0, 3.0])
        x.sub_(1.0).div_(2.0)
    np.testing.assert_allclose(x.detach().numpy(), [0.5, 1.5, 2.5])
    assert x._version > before
    x.zero_()
    assert x.detach().numpy().sum() == 0
    x.fill_(2.0)
    x.copy_(tg.tensor([4.0, 5.0, 6.0]))
    np.testing.assert_allclose(x.detach().numpy(), [4.0, 5.0, 6.0])


# ---------------------------------------------------------------------------------------------
# functions and methods


@pytest.mark.parametrize("name,npfn", [
    ("exp", np.exp), ("sin", np.sin), ("cos", np.cos), ("tanh", np.tanh), ("abs", np.abs),
    ("neg", np.negative), ("sign", np.sign), ("relu", lambda a: np.maximum(a, 0)),
    ("sigmoid", lambda a: 1 / (1 + np.exp(-a))), ("square", np.square),
])
def test_unary_functions_and_methods(engine, name, npfn):
    tg = engine
    a = arr(3, 2)
    x = tg.tensor(a)
    np.testing.assert_allclose(getattr(tg, name)(x).detach().numpy(), npfn(a), rtol=1e-12)
    np.testing.assert_allclose(getattr(x, name)().detach().numpy(), npfn(a), rtol=1e-12)


def test_positive_domain_unary(engine):
    tg = engine
    a = np.abs(arr(5)) + 0.1
    x = tg.tensor(a)
    for name, npfn in [("log", np.log), ("sqrt", np.sqrt), ("rsqrt", lambda v: v ** -0.5),
                       ("reciprocal", np.reciprocal), ("log1p", np.log1p),
                       ("expm1", np.expm1), ("log2", np.log2)]:
        np.testing.assert_allclose(getattr(tg, name)(x).detach().numpy(), npfn(a), rtol=1e-12)


def test_reductions(engine):
    tg = engine
    a = arr(2, 3, 4)
    x = tg.tensor(a)
    np.testing.assert_allclose(tg.sum(x).detach().numpy(), a.sum())
    np.testing.assert_allclose(x.sum(1).detach().numpy(), a.sum(1))
    np.testing.assert_allclose(x.sum((0, 2), keepdim=True).detach().numpy(), a.sum((0, 2),
                                                                            keepdims=True))
    np.testing.assert_allclose(x.mean(-1).detach().numpy(), a.mean(-1))
    np.testing.assert_allclose(x.amax(1).detach().numpy(), a.max(1))
    np.testing.assert_allclose(x.max().detach().numpy(), a.max())
    values, indices = x.max(2)
    np.testing.assert_allclose(values.detach().numpy(), a.max(2))
    np.testing.assert_array_equal(indices.detach().numpy(), a.argmax(2))
    assert x.min(0, keepdim=True).values.shape == (1, 3, 4)
    np.testing.assert_allclose(tg.logsumexp(x, 1).detach().numpy(),
                               np.log(np.exp(a).sum(1)), rtol=1e-12)
    sm = tg.softmax(x, -1).detach().numpy()
    np.testing.assert_allclose(sm, np.exp(a) / np.exp(a).sum(-1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(x.log_softmax(-1).detach().numpy(), np.log(sm), rtol=1e-10)
    np.testing.assert_allclose(x.var(1).detach().numpy(), a.var(1, ddof=1), rtol=1e-12)
    np.testing.assert_allclose(x.std().detach().numpy(), a.std(ddof=1), rtol=1e-12)
    np.testing.assert_allclose(x.norm().detach().numpy(), np.linalg.norm(a), rtol=1e-12)
    np.testing.assert_array_equal(x.argmax(1).detach().numpy(), a.argmax(1))


def test_shape_functions(engine):
    tg = engine
    a = arr(2, 3, 4)
    x = tg.tensor(a)
    assert x.reshape(6, -1).shape == (6, 4) and x.view(-1).shape == (24,)
    assert x.reshape((4, 6)).shape == (4, 6)
    assert x.flatten(1).shape == (2, 12) and x.permute(2, 0, 1).shape == (4, 2, 3)
    assert x.transpose(0, 2).shape == (4, 3, 2) and x.T.shape == (4, 3, 2)
    assert x.unsqueeze(1).shape == (2, 1, 3, 4)
    assert x.unsqueeze(1).squeeze().shape == (2, 3, 4) and x.squeeze(0).shape == (2, 3, 4)
    assert x[:, :1].squeeze(1).shape == (2, 4)
    assert x[:1].expand(5, -1, -1).shape == (5, 3, 4)
    np.testing.assert_allclose(x.T.detach().numpy(), a.T)
    np.testing.assert_allclose(tg.cat([x, x], 1).detach().numpy(), np.concatenate([a, a], 1))
    np.testing.assert_allclose(tg.stack([x, x], -1).detach().numpy(), np.stack([a, a], -1))
    parts = x.split(2, dim=2)
    assert [p.shape for p in parts] == [(2, 3, 2), (2, 3, 2)]
    assert [c.shape[1] for c in x.chunk(2, 1)] == [2, 1]
    assert len(x.unbind(1)) == 3
    with pytest.raises(RuntimeError, match="invalid for input of size 24"):
        x.reshape(5, -1)


def test_where_clamp_maximum(engine):
    tg = engine
    a, b = arr(3, 4), arr(3, 4)
    x, y = tg.tensor(a), tg.tensor(b)
    np.testing.assert_allclose(tg.where(x > 0, x, y).detach().numpy(), np.where(a > 0, a, b))
    np.testing.assert_allclose(tg.where(x > 0, x, 0.0).detach().numpy(), np.where(a > 0, a, 0.0))
    np.testing.assert_allclose(x.clamp(-0.5, 0.5).detach().numpy(), np.clip(a, -0.5, 0.5))
    np.testing.assert_allclose(x.clamp(min=0).detach().numpy(), np.maximum(a, 0))
    np.testing.assert_allclose(tg.maximum(x, y).detach().numpy(), np.maximum(a, b))
    np.testing.assert_allclose(x.clamp(y, y + 1).detach().numpy(),
                               np.minimum(np.maximum(a, b), b + 1))


def test_matmul_variants(engine):
    tg = engine
    a, b, v = arr(3, 4), arr(4, 5), arr(4)
    x, w, u = tg.tensor(a), tg.tensor(b), tg.tensor(v)
    np.testing.assert_allclose((x @ w).detach().numpy(), a @ b, rtol=1e-12)
    np.testing.assert_allclose(x.matmul(u).detach().numpy(), a @ v, rtol=1e-12)
    np.testing.assert_allclose(tg.mm(x, w).detach().numpy(), a @ b, rtol=1e-12)
    np.testing.assert_allclose(tg.dot(u, u).detach().numpy(), v @ v, rtol=1e-12)
    bx, bw = arr(2, 3, 4), arr(2, 4, 5)
    np.testing.assert_allclose(tg.bmm(tg.tensor(bx), tg.tensor(bw)).detach().numpy(), bx @ bw,
                               rtol=1e-12)


def test_dtype_conversions(engine):
    tg = engine
    x = tg.tensor([1.5, -2.5])
    assert x.double().dtype == tg.float64 and x.long().dtype == tg.int64
    assert x.to(tg.float64).dtype == np.float64 and x.to("cpu") is x
    assert x.to(tg.tensor([1], dtype=tg.float64)).dtype == tg.float64
    assert (x > 0).float().dtype == tg.float32 and x.bool().dtype == tg.bool
    y = tg.tensor([1.0], requires_grad=True)
    z = y.double()
    z.sum().backward()
    assert y.grad.dtype == tg.float32


def test_index_functions(engine):
    tg = engine
    a = arr(4, 3)
    x = tg.tensor(a)
    idx = tg.tensor([2, 0, 2])
    np.testing.assert_allclose(x.index_select(0, idx).detach().numpy(), a[[2, 0, 2]])
    g = tg.tensor([[0, 1, 2], [2, 1, 0]])
    np.testing.assert_allclose(x.gather(0, g).detach().numpy(),
                               np.take_along_axis(a, g.detach().numpy(), 0))
    out = tg.zeros(3, 3, dtype=tg.float64).index_add(0, idx, x[:3])
    expect = np.zeros((3, 3))
    np.add.at(expect, [2, 0, 2], a[:3])
    np.testing.assert_allclose(out.detach().numpy(), expect)


def test_floor_divide_and_remainder_follow_python(engine):
    tg = engine
    a = np.array([-7.5, -2.0, 3.0, 7.25])
    x = tg.tensor(a, requires_grad=True)
    np.testing.assert_allclose((x // 2).detach().numpy(), a // 2)
    r = x % 2
    np.testing.assert_allclose(r.detach().numpy(), a % 2)
    r.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), np.ones(4))
    np.testing.assert_allclose(tg.tensor([7, -7]).__mod__(3).detach().numpy(), [1, 2])
    np.testing.assert_allclose(x.detach().floor().detach().numpy(), np.floor(a))
    np.testing.assert_allclose((x.detach() @ np.ones(4)).item(), a.sum())


def test_more_shape_helpers(engine):
    tg = engine
    a = arr(2, 3, 4)
    x = tg.tensor(a)
    np.testing.assert_allclose(x.narrow(2, 1, 2).detach().numpy(), a[:, :, 1:3])
    np.testing.assert_allclose(x.movedim(0, 2).detach().numpy(), np.moveaxis(a, 0, 2))
    assert x.unflatten(2, (2, -1)).shape == (2, 3, 2, 2)
    u, v = tg.broadcast_tensors(tg.ones(3, 1), tg.ones(4))
    assert u.shape == v.shape == (3, 4)
    np.testing.assert_allclose(tg.outer(x[0, 0], x[1, 1]).detach().numpy(),
                               np.outer(a[0, 0], a[1, 1]))
    assert x.sum_to_size(1, 3, 1).shape == (1, 3, 1)
    p = tg.tensor([1.0, 2.0], requires_grad=True)
    p.data.mul_(2)  # PyTorch's optimizer idiom: writes p's storage, no autograd
    np.testing.assert_allclose(p.detach().numpy(), [2.0, 4.0])
    assert p.is_leaf and p.requires_grad


def test_deepcopy_and_pickle(engine):
    import copy
    import pickle

    tg = engine
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).sum().backward()
    y = copy.deepcopy(x)
    assert y is not x and y.requires_grad and y.is_leaf
    np.testing.assert_array_equal(y.detach().numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(y.grad.detach().numpy(), [2.0, 2.0])
    assert not np.shares_memory(y.detach().numpy(), x.detach().numpy())
    z = pickle.loads(pickle.dumps(x))
    assert type(z) is type(x) and z.requires_grad and z.dtype == x.dtype
    np.testing.assert_array_equal(z.detach().numpy(), [1.0, 2.0])
    with pytest.raises(RuntimeError, match="deepcopy"):
        copy.deepcopy(x * 2)


def test_remaining_functions_smoke(engine):
    tg = engine
    a = arr(3, 4)
    x = tg.tensor(a)
    np.testing.assert_allclose(x.norm(p=1).detach().numpy(), np.abs(a).sum())
    np.testing.assert_allclose(tg.norm(x, float("inf"), dim=1).detach().numpy(), np.abs(a).max(1))
    np.testing.assert_allclose(x.var((0, 1), unbiased=False).detach().numpy(), a.var())
    np.testing.assert_allclose(tg.log10(x.abs()).detach().numpy(), np.log10(np.abs(a)))
    np.testing.assert_allclose(x.clip(max=0.0).detach().numpy(), np.minimum(a, 0))
    np.testing.assert_allclose(x.swapaxes(0, 1).detach().numpy(), a.T)
    np.testing.assert_array_equal(x.argmin().detach().numpy(), a.argmin())
    assert bool(tg.all(x.abs() >= 0)) and not bool((x > 100).any())
    np.testing.assert_array_equal(tg.isnan(x / 0.0 * 0.0).detach().numpy(), np.ones((3, 4), bool))
    assert tg.allclose(x, x + 1e-12) and tg.equal(x, x) and not tg.equal(x, x + 1)
    np.testing.assert_array_equal((~(x > 0)).detach().numpy(), ~(a > 0))
    np.testing.assert_array_equal(((x > 0) & (x < 1)).detach().numpy(), (a > 0) & (a < 1))
    idx = tg.tensor([[0, 1, 2, 0]])
    out = tg.zeros(3, 4, dtype=tg.float64).scatter_add(0, idx, x[:1])
    expect = np.zeros((3, 4))
    expect[[0, 1, 2, 0], [0, 1, 2, 3]] += a[0]
    np.testing.assert_allclose(out.detach().numpy(), expect)
    np.testing.assert_allclose(tg.slice_scatter(x, tg.zeros(3, 2, dtype=tg.float64), 1, 0, 2)
                               .detach().numpy(), np.concatenate([np.zeros((3, 2)), a[:, 2:]], 1))
    np.testing.assert_allclose(
        tg.select_scatter(x, tg.ones(4, dtype=tg.float64), 0, 1).detach().numpy(),
                               np.stack([a[0], np.ones(4), a[2]]))
    assert tg.eye(3).detach().numpy().trace() == 3 and tg.linspace(0, 1, 5).shape == (5,)
    assert tg.randint(0, 5, (10,)).dtype == tg.int64 and sorted(tg.randperm(4).tolist()) == [
        0, 1, 2, 3]
    assert x.new_zeros(2).dtype == tg.float64 and x.new_full((2,), 3.0).detach().numpy()[0] == 3.0
    assert tg.empty_like(x).shape == (3, 4) and x.type() == "torch.DoubleTensor"
    assert x.type_as(tg.ones(1)).dtype == tg.float32 and x.is_floating_point()
    assert x.cpu() is x and x.device == tg.device("cpu") and tg.is_tensor(x) and tg.numel(x) == 12


def test_numpy_functions_accept_tensors(engine):
    tg = engine
    a = arr(2, 3)
    t = tg.tensor(a)
    np.testing.assert_allclose(np.sum(t), a.sum())
    np.testing.assert_allclose(np.mean(t, axis=1).detach().numpy(), a.mean(1))
    np.testing.assert_allclose(np.max(t, axis=0, keepdims=True).detach().numpy(),
                               a.max(0, keepdims=True))
    np.testing.assert_allclose((np.float64(2.0) * t).detach().numpy(), 2 * a)
    np.testing.assert_allclose((np.ones(3) - t).detach().numpy(), 1 - a)


def test_num_threads_round_trip_and_results_do_not_depend_on_it(engine):
    tg = engine
    x = np.random.default_rng(0).standard_normal(300_000)
    saved = tg.get_num_threads()
    try:
        results = []
        for n in (1, 2):
            tg.set_num_threads(n)
            assert tg.get_num_threads() == n
            t = tg.tensor(x, requires_grad=True)
            (t.sin() * t).sum().backward()
            results.append(t.grad.detach().numpy())
        np.testing.assert_array_equal(results[0], results[1])
        with pytest.raises(ValueError, match="positive number of threads, got 0"):
            tg.set_num_threads(0)
        with pytest.raises(TypeError):
            tg.set_num_threads(1.5)
    finally:
        tg.set_num_threads(saved)
    assert tg.get_num_threads() == saved
