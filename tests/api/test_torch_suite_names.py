"""Names and behaviours PyTorch's own autograd tests use (issue 11), on both engines and
compared with torch where it is installed: ``torch.detach``, ``chain_matmul``, ``trapz`` /
``trapezoid``, ``Tensor.pinverse``, ``movedim`` with several dims, ``gather(sparse_grad=)``,
the legacy classes' ``dtype``, ``Tensor.data_ptr``, ``del x.grad`` and the checks of a
``.grad`` assignment, the p-norm's and cdist's zero subgradient, and a custom Function that
changes a view of another tensor in place (its base must get the Function's history)."""

import numpy as np
import pytest

F64 = "float64"


def _np(t):
    return np.asarray(t.detach().tolist(), dtype=float)


def _torch():
    torch = pytest.importorskip("torch")
    return torch


def test_detach_function_and_chain_matmul(engine):
    tg = engine
    x = tg.randn(3, 4, dtype=tg.float64, requires_grad=True)
    d = tg.detach(x)
    assert not d.requires_grad and np.array_equal(_np(d), _np(x))
    mats = [tg.randn(a, b, dtype=tg.float64, requires_grad=True)
            for a, b in ((3, 5), (5, 2), (2, 6))]
    out = tg.chain_matmul(*mats)
    np.testing.assert_allclose(_np(out), _np(mats[0]) @ _np(mats[1]) @ _np(mats[2]))
    assert tg.autograd.gradcheck(tg.chain_matmul, mats)
    with pytest.raises(RuntimeError, match="expected 2 instead"):
        tg.chain_matmul(tg.ones(3, dtype=tg.float64), mats[0])


@pytest.mark.parametrize("name", ["trapz", "trapezoid"])
def test_trapezoid_matches_torch_and_gradchecks(engine, name):
    tg = engine
    y = np.random.default_rng(0).standard_normal((2, 3))
    x = np.array([[1.0, 2.0, 5.5], [2.3, 0.5, 6.2]])
    fn = getattr(tg, name)
    ty = tg.tensor(y, dtype=tg.float64, requires_grad=True)
    tx = tg.tensor(x, dtype=tg.float64, requires_grad=True)
    assert tg.autograd.gradcheck(lambda a, b: fn(a, b), (ty, tx))
    assert tg.autograd.gradgradcheck(lambda a, b: fn(a, b), (ty, tx))
    results = [fn(ty, tx), fn(ty), fn(ty, dx=0.5), fn(ty, tg.tensor([0.0, 1.0, 3.0]), dim=1),
               fn(ty, dim=0)]
    # by hand: the sum of (x[i+1] - x[i]) * (y[i+1] + y[i]) / 2 along the last dim
    np.testing.assert_allclose(_np(results[0]), ((x[:, 1:] - x[:, :-1]) *
                                                 (y[:, 1:] + y[:, :-1]) / 2).sum(-1))
    torch = _torch()
    tfn = getattr(torch, name)
    py, px = torch.tensor(y), torch.tensor(x)
    expected = [tfn(py, px), tfn(py), tfn(py, dx=0.5), tfn(py, torch.tensor([0.0, 1.0, 3.0]),
                                                           dim=1), tfn(py, dim=0)]
    for got, want in zip(results, expected, strict=True):
        np.testing.assert_allclose(_np(got), want.numpy(), rtol=1e-12)


def test_pinverse_method_is_linalg_pinv(engine):
    tg = engine
    a = tg.randn(4, 3, dtype=tg.float64)
    np.testing.assert_allclose(_np(a.pinverse()), np.linalg.pinv(_np(a)), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(_np(tg.pinverse(a)), _np(tg.linalg.pinv(a)))


@pytest.mark.parametrize("source, destination", [((0, 1, 2, 3), (3, 2, 1, 0)),
                                                 ((0, -1, -2, -3), (-3, -2, -1, -0)),
                                                 ((1, 3), (0, 1)), (2, 0)])
def test_movedim_with_several_dims_matches_torch(engine, source, destination):
    tg = engine
    x = tg.randn(4, 3, 2, 1, dtype=tg.float64, requires_grad=True)
    out = tg.movedim(x, source, destination)
    assert tg.autograd.gradcheck(lambda t: tg.movedim(t, source, destination), x)
    torch = _torch()
    want = torch.movedim(torch.tensor(_np(x)), source, destination)
    assert tuple(out.shape) == tuple(want.shape)
    np.testing.assert_array_equal(_np(out), want.numpy())


def test_movedim_refuses_what_torch_refuses(engine):
    tg = engine
    x = tg.ones(2, 3, 4)
    with pytest.raises(RuntimeError, match="should contain the same number of dims"):
        tg.movedim(x, (0, 1), (2,))
    with pytest.raises(RuntimeError, match="repeated dim in `source`"):
        tg.movedim(x, (0, 0), (1, 2))


def test_gather_accepts_sparse_grad_false(engine):
    tg = engine
    x = tg.randn(3, 4, dtype=tg.float64, requires_grad=True)
    idx = tg.tensor([[0, 1, 2, 0]])
    out = tg.gather(x, 0, idx, sparse_grad=False)
    np.testing.assert_array_equal(_np(out), _np(tg.gather(x, 0, idx)))
    with pytest.raises(NotImplementedError, match="sparse"):
        tg.gather(x, 0, idx, sparse_grad=True)


def test_legacy_class_dtype_and_data_ptr(engine):
    tg = engine
    assert tg.DoubleTensor.dtype is tg.float64 and tg.FloatTensor.dtype is tg.float32
    assert tg.LongTensor.dtype is tg.int64 and tg.DoubleTensor().dtype is tg.float64
    x = tg.zeros(4, dtype=tg.float64)
    assert x.data_ptr() != 0
    assert x[1:].data_ptr() == x.data_ptr() + 8   # a view points into its base
    assert x.clone().data_ptr() != x.data_ptr()


def test_grad_assignment_checks_and_deletion(engine):
    tg = engine
    x = tg.randn(5, 5, dtype=tg.float64)
    with pytest.raises(RuntimeError, match="assigned grad has data of a different size"):
        x.grad = tg.randn(2, 2, dtype=tg.float64)
    with pytest.raises(RuntimeError, match="assigned grad has data of a different type"):
        x.grad = tg.zeros(5, 5, dtype=tg.int64)
    with pytest.raises(RuntimeError, match="can't assign Variable as its own grad"):
        x.grad = x
    x.grad = tg.ones(5, 5, dtype=tg.float64)
    del x.grad
    assert x.grad is None
    with pytest.raises(RuntimeError, match="Deleting tensor data is not allowed. Delete tensor "
                                           "instead!"):
        del x.data
    with pytest.raises(RuntimeError, match="requires_grad must be a bool"):
        del x.requires_grad
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got NoneType"):
        x.data = None


@pytest.mark.parametrize("p", [2, 3, 1, 1.5, float("inf")])
def test_norm_at_zero_has_the_zero_subgradient(engine, p):
    tg = engine
    x = tg.zeros(10, dtype=tg.float64, requires_grad=True)
    x.norm(p).backward()
    np.testing.assert_array_equal(_np(x.grad), np.zeros(10))
    y = tg.randn(3, 4, dtype=tg.float64, requires_grad=True)
    assert tg.autograd.gradcheck(lambda t: t.norm(p, dim=1), y)
    np.testing.assert_allclose(float(y.norm(p)), np.linalg.norm(_np(y).ravel(), p), rtol=1e-12)
    assert y.float().norm(p).dtype is tg.float32


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, 1.5, float("inf")])
def test_cdist_of_equal_rows_has_a_finite_gradient(engine, p):
    tg = engine
    x = tg.randn(1, 6, 4, dtype=tg.float64)
    y = x.clone()
    x.requires_grad_()
    go = tg.randn(1, 6, 6, dtype=tg.float64)
    d = tg.cdist(x, y, p)
    assert d.requires_grad
    d.backward(go)
    assert np.isfinite(_np(x.grad)).all()
    torch = _torch()
    tx = torch.tensor(_np(x), requires_grad=True)
    torch.cdist(tx, torch.tensor(_np(y)), p).backward(torch.tensor(_np(go)))
    np.testing.assert_allclose(_np(x.grad), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


def _dirty_view_function(lib):
    class AddInPlace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.mark_dirty(x)
            x.add_(y)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    def fn(root, b):
        x = root.clone()
        AddInPlace.apply(x.narrow(1, 2, 2).narrow(0, 1, 2), b)
        AddInPlace.apply(x.narrow(1, 0, 2).narrow(0, 1, 2), b)
        return x
    return fn


def test_custom_function_changing_a_view_in_place_updates_the_base_history(engine):
    tg = engine
    a = tg.randn(4, 4, dtype=tg.float64, requires_grad=True)
    b = tg.randn(2, 2, dtype=tg.float64, requires_grad=True)
    fn = _dirty_view_function(tg)
    out = fn(a, b)
    out.sum().backward()
    # b was added to two 2x2 blocks: each of its elements reaches two outputs
    np.testing.assert_array_equal(_np(b.grad), np.full((2, 2), 2.0))
    np.testing.assert_array_equal(_np(a.grad), np.ones((4, 4)))
    assert tg.autograd.gradcheck(fn, (a, b))
    assert tg.autograd.gradgradcheck(fn, (a, b))
    torch = _torch()
    ta = torch.tensor(_np(a), requires_grad=True)
    tb = torch.tensor(_np(b), requires_grad=True)
    go = np.random.default_rng(1).standard_normal((4, 4))
    _dirty_view_function(torch)(ta, tb).backward(torch.tensor(go))
    a.grad = b.grad = None
    fn(a, b).backward(tg.tensor(go, dtype=tg.float64))
    np.testing.assert_allclose(_np(a.grad), ta.grad.numpy())
    np.testing.assert_allclose(_np(b.grad), tb.grad.numpy())


def test_gradcheck_calls_the_function_in_the_callers_grad_mode(engine):
    tg = engine
    seen = []

    def fn(r):
        x = tg.ones(5, dtype=tg.float64)
        v = x.select(0, 1)
        x.add_(r)                     # the in-place op makes the earlier view require grad
        seen.append((tg.is_grad_enabled(), v.requires_grad))
        return v

    r = tg.ones(1, dtype=tg.float64, requires_grad=True)
    assert tg.autograd.gradcheck(fn, [r])
    assert tg.autograd.gradgradcheck(fn, [r])
    assert seen and all(s == (True, True) for s in seen)   # numerical evaluations included


def _dirty_view_two_outputs(lib, make_input):
    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x, x

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 2

    x = lib.randn(5, 5, dtype=lib.float64, requires_grad=True)
    return Twice.apply(make_input(x))


@pytest.mark.parametrize("case", ["leaf", "view"])
def test_dirty_leaf_or_dirty_view_with_two_outputs_is_refused(engine, case):
    make = (lambda x: x) if case == "leaf" else (lambda x: x.clone()[0])
    with pytest.raises(RuntimeError) as info:
        _dirty_view_two_outputs(engine, make)
    torch = _torch()
    with pytest.raises(RuntimeError) as expected:
        _dirty_view_two_outputs(torch, make)
    assert str(info.value) == str(expected.value)
    # a clone (not a view) may be changed and returned twice
    a, b = _dirty_view_two_outputs(engine, lambda x: x.clone())
    assert a is b


def test_cat_skips_legacy_empty_tensors_and_gradcheck_takes_empty_inputs(engine):
    tg = engine
    empty = tg.randn(0, dtype=tg.float64, requires_grad=True)
    square = tg.randn(5, 5, dtype=tg.float64, requires_grad=True)
    assert tuple(tg.cat((empty, square)).shape) == (5, 5)
    assert tuple(tg.cat((tg.randn(3), tg.randn(0))).shape) == (3,)
    assert tg.autograd.gradcheck(lambda a, b: tg.cat((a, b)), (empty, square), eps=1e-6,
                                 atol=1e-4)
    rows = tg.randn(0, 5, dtype=tg.float64, requires_grad=True)
    assert tg.autograd.gradcheck(lambda a, b: tg.cat((a, b)), (rows, square))
    assert tg.autograd.gradgradcheck(lambda a, b: tg.cat((a, b)), (rows, square))
    torch = _torch()
    assert tuple(torch.cat((torch.randn(0), torch.randn(5, 5))).shape) == (5, 5)


@pytest.mark.parametrize("x_shape, index", [((10,), 3), ((), [0, 0]), ((), 0)])
def test_gather_with_a_zero_dim_side_matches_torch(engine, x_shape, index):
    tg = engine
    data = np.random.default_rng(2).standard_normal(x_shape)
    x = tg.tensor(data, dtype=tg.float64, requires_grad=True)
    idx = tg.tensor(index)
    out = tg.gather(x, 0, idx)
    g = np.ones(np.shape(index))
    out.backward(tg.tensor(g, dtype=tg.float64))
    torch = _torch()
    tx = torch.tensor(data, requires_grad=True)
    want = torch.gather(tx, 0, torch.tensor(index))
    want.backward(torch.tensor(g))
    assert tuple(out.shape) == tuple(want.shape)
    np.testing.assert_array_equal(_np(out), want.detach().numpy())
    np.testing.assert_array_equal(_np(x.grad), tx.grad.numpy())


def test_split_with_sizes_is_a_multi_view_function(engine):
    tg = engine
    a = tg.randn(3, 3, dtype=tg.float64, requires_grad=True)
    parts = (a + a).split_with_sizes((1, 2))
    assert [tuple(p.shape) for p in parts] == [(1, 3), (2, 3)]
    assert [tuple(p.shape) for p in tg.split_with_sizes(a, [2, 1], 1)] == [(3, 2), (3, 1)]
    with pytest.raises(RuntimeError, match="Output 0 of SplitWithSizes is a view and "
                                           "is being modified inplace"):
        parts[0].mul_(2)


def test_calling_a_grad_fn_applies_it(engine):
    tg = engine
    x = tg.tensor([1.5, -2.0], dtype=tg.float64, requires_grad=True)
    y = x ** 2
    g = y.grad_fn(tg.ones(2, dtype=tg.float64))
    np.testing.assert_allclose(_np(g), 2 * _np(x))
    for args in ((tg.ones(2), tg.ones(2)), ()):
        with pytest.raises(TypeError, match="expected 1 arguments, got .* instead"):
            y.grad_fn(*args)
    a, b = tg.ones(2, dtype=tg.float64, requires_grad=True), tg.ones(2, dtype=tg.float64)
    ga, gb = (a * b + 0).grad_fn.next_functions[0][0](tg.full((2,), 3.0, dtype=tg.float64))
    np.testing.assert_allclose(_np(ga), [3.0, 3.0])   # MulBackward0: b * grad, and None for b
    assert gb is None
    torch = _torch()
    tx = torch.tensor([1.5, -2.0], requires_grad=True)
    with pytest.raises(TypeError, match="expected 1 arguments, got 2 instead"):
        (tx ** 2).grad_fn(torch.ones(2), torch.ones(2))
