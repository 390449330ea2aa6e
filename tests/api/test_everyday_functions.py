"""The everyday composites and utilities (shape_functions, search_functions, predicates,
statistics): results and errors on both engines, gradients where torch has them, and the same
values as torch where it is installed."""

import numpy as np
import pytest


def _np(t):
    return np.asarray(t.detach())


def test_stacking_and_atleast(engine):
    a, b = engine.ones(2), engine.zeros(3)
    assert tuple(engine.hstack([a, b]).shape) == (5,)
    assert tuple(engine.vstack([engine.ones(3), engine.zeros(3)]).shape) == (2, 3)
    assert tuple(engine.row_stack([engine.ones(3), engine.zeros(3)]).shape) == (2, 3)
    assert tuple(engine.dstack([engine.ones(2, 3), engine.zeros(2, 3)]).shape) == (2, 3, 2)
    assert tuple(engine.column_stack([engine.ones(3), engine.zeros(3, 2)]).shape) == (3, 3)
    assert tuple(engine.atleast_1d(engine.tensor(1.0)).shape) == (1,)
    assert [tuple(t.shape) for t in engine.atleast_2d(engine.ones(3), engine.ones(2, 2))] == [
        (1, 3), (2, 2)]
    assert tuple(engine.atleast_3d(engine.ones(4)).shape) == (1, 4, 1)
    with pytest.raises(RuntimeError, match="hstack expects a non-empty TensorList"):
        engine.hstack([])
    x = engine.ones(3, requires_grad=True)
    engine.vstack([x, x * 2]).sum().backward()
    assert _np(x.grad).tolist() == [3.0, 3.0, 3.0]


def test_grids_and_combinations(engine):
    gx, gy = engine.meshgrid(engine.arange(3), engine.arange(4), indexing="xy")
    assert tuple(gx.shape) == (4, 3) and _np(gx)[0].tolist() == [0, 1, 2]
    gi, gj = engine.meshgrid(engine.arange(3), engine.arange(4), indexing="ij")
    assert tuple(gi.shape) == (3, 4) and _np(gj)[0].tolist() == [0, 1, 2, 3]
    with pytest.raises(RuntimeError, match="indexing must be one of"):
        engine.meshgrid(engine.arange(3), indexing="yx")
    assert _np(engine.cartesian_prod(engine.arange(2), engine.arange(2))).tolist() == [
        [0, 0], [0, 1], [1, 0], [1, 1]]
    assert _np(engine.combinations(engine.arange(4), 2)).tolist() == [
        [0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    assert _np(engine.combinations(engine.arange(2), 2, with_replacement=True)).tolist() == [
        [0, 0], [0, 1], [1, 1]]
    x = engine.tensor([1.0, 2.0, 3.0], requires_grad=True)
    engine.combinations(x, 2).prod(1).sum().backward()  # d/dx_i sum_{i<j} x_i x_j
    assert _np(x.grad).tolist() == [5.0, 4.0, 3.0]


def test_kron_tensordot_diff_block_diag(engine):
    a = engine.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    k = engine.kron(a, engine.eye(2))
    assert _np(k).tolist() == np.kron(_np(a), np.eye(2)).tolist()
    k.sum().backward()
    assert _np(a.grad).tolist() == [[2.0, 2.0], [2.0, 2.0]]
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 3, 5))
    got = engine.tensordot(engine.tensor(x), engine.tensor(y), dims=([1, 2], [1, 0]))
    np.testing.assert_allclose(_np(got), np.tensordot(x, y, axes=([1, 2], [1, 0])), rtol=1e-12)
    assert tuple(engine.tensordot(engine.tensor(x), engine.tensor(y), 1).shape) == (2, 3, 3, 5)
    with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
        engine.tensordot(engine.tensor(x), engine.tensor(y), dims=([1], [2]))
    assert _np(engine.diff(engine.tensor([1, 4, 9, 16]))).tolist() == [3, 5, 7]
    assert _np(engine.diff(engine.tensor([1, 4, 9, 16]), n=2)).tolist() == [2, 2]
    assert _np(engine.diff(engine.tensor([True, True, False]))).tolist() == [False, True]
    assert _np(engine.diff(engine.tensor([1.0, 3.0]), prepend=engine.tensor([0.0]))).tolist() \
        == [1.0, 2.0]
    bd = engine.block_diag(engine.ones(2, 2), engine.tensor([3.0, 4.0]), engine.tensor(5.0))
    assert _np(bd).tolist() == [[1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [0, 0, 3, 4, 0],
                                [0, 0, 0, 0, 5]]


def test_search_and_count(engine):
    x = engine.tensor([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])
    assert _np(engine.nonzero(x)).tolist() == [[0, 0], [0, 2], [1, 1]]
    assert [_np(i).tolist() for i in x.nonzero(as_tuple=True)] == [[0, 0, 1], [0, 2, 1]]
    assert _np(engine.argwhere(x)).tolist() == [[0, 0], [0, 2], [1, 1]]
    assert int(engine.count_nonzero(x)) == 3 and _np(x.count_nonzero(0)).tolist() == [1, 1, 1]
    v, inv, cnt = engine.unique(engine.tensor([3, 1, 3, 2]), return_inverse=True,
                                return_counts=True)
    assert (_np(v).tolist(), _np(inv).tolist(), _np(cnt).tolist()) == (
        [1, 2, 3], [2, 0, 2, 1], [1, 1, 2])
    rows = engine.unique(engine.tensor([[1, 2], [1, 2], [0, 5]]), dim=0)
    assert _np(rows).tolist() == [[0, 5], [1, 2]]
    assert _np(engine.unique_consecutive(engine.tensor([1, 1, 2, 2, 1]))).tolist() == [1, 2, 1]
    assert _np(engine.bincount(engine.tensor([0, 1, 1, 3]), minlength=6)).tolist() == [
        1, 2, 0, 1, 0, 0]
    with pytest.raises(RuntimeError, match="bincount only supports 1-d non-negative"):
        engine.bincount(engine.tensor([-1, 2]))
    assert _np(engine.histc(engine.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)).tolist() == [
        0.0, 2.0, 1.0, 0.0]
    seq = engine.tensor([1, 3, 5, 7])
    assert _np(engine.searchsorted(seq, engine.tensor([3, 6]))).tolist() == [1, 3]
    assert _np(engine.searchsorted(seq, engine.tensor([3, 6]), right=True)).tolist() == [2, 3]
    assert _np(engine.bucketize(engine.tensor([3, 6]), seq)).tolist() == [1, 3]
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites"):
        engine.searchsorted(seq, engine.tensor([3]), right=True, side="left")
    assert _np(engine.isin(engine.tensor([1, 2, 3]), engine.tensor([2, 5]))).tolist() == [
        False, True, False]
    assert _np(engine.isin(engine.tensor([1, 2]), 2, invert=True)).tolist() == [True, False]


def test_predicates(engine):
    nan, inf = float("nan"), float("inf")
    a = engine.tensor([1.0, nan, inf, -inf, -0.0])
    b = engine.tensor([1.0 + 1e-9, nan, inf, inf, 0.0])
    assert _np(engine.isclose(a, b)).tolist() == [True, False, True, False, True]
    assert _np(engine.isclose(a, b, equal_nan=True)).tolist()[1] is True
    with pytest.raises(RuntimeError, match="Float did not match Long"):
        engine.isclose(engine.ones(1), engine.ones(1, dtype=engine.int64))
    assert _np(engine.isneginf(a)).tolist() == [False, False, False, True, False]
    assert _np(engine.isposinf(a)).tolist() == [False, False, True, False, False]
    assert _np(engine.signbit(a)).tolist() == [False, False, False, True, True]
    assert _np(engine.isreal(a)).all()


def test_statistics(engine):
    x = engine.tensor([[1.0, float("nan"), 3.0], [2.0, 4.0, 6.0]], dtype=engine.float64)
    assert _np(engine.nanmean(x, 1)).tolist() == [2.0, 4.0]
    assert np.isnan(_np(engine.quantile(x, 0.5, dim=1))[0])
    assert _np(engine.nanquantile(x, 0.5, dim=1)).tolist() == [2.0, 4.0]
    y = engine.tensor([1.0, 2.0, 3.0, 4.0], dtype=engine.float64, requires_grad=True)
    assert float(engine.quantile(y, 0.25)) == 1.75
    for mode, want in (("lower", 1.0), ("higher", 2.0), ("midpoint", 1.5), ("nearest", 2.0)):
        assert float(engine.quantile(y, 0.25, interpolation=mode)) == want
    q = engine.quantile(y, engine.tensor([0.25, 0.5], dtype=engine.float64))
    q.sum().backward()
    assert _np(y.grad).tolist() == [0.25, 1.25, 0.5, 0.0]
    with pytest.raises(RuntimeError, match="q values must be in the range \\[0, 1\\]"):
        engine.quantile(y, 1.5)
    with pytest.raises(RuntimeError, match="interpolation must be one of"):
        engine.quantile(y, 0.5, interpolation="cubic")


def test_quantile_gradient_reaches_q(engine):
    # linear interpolation's weight is q * (n - 1) - floor(q * (n - 1)): d/dq = (n - 1) * (b - a)
    y = engine.tensor([[4.0, 1.0, 3.0, 2.0], [0.0, 8.0, 2.0, 2.0]], dtype=engine.float64)
    for name in ("quantile", "nanquantile"):
        q = engine.tensor([0.25, 0.5], dtype=engine.float64, requires_grad=True)
        getattr(engine, name)(y, q, 1).sum().backward()
        # sorted rows [1,2,3,4], [0,2,2,8]: rank 0.75 between 1,2 and 0,2; rank 1.5 between 2,3
        # and 2,2
        assert _np(q.grad).tolist() == [3.0 * (1.0 + 2.0), 3.0 * (1.0 + 0.0)]
        q = engine.tensor(0.25, dtype=engine.float64, requires_grad=True)
        y.requires_grad_()
        getattr(engine, name)(y, q, 1, interpolation="lower").sum().backward()
        assert q.grad is None  # lower's weights are constants, as torch's
        y = y.detach()
    assert engine.autograd.gradcheck(
        lambda x, q: engine.quantile(x, q, 1, keepdim=True),
        (engine.randn(3, 5, dtype=engine.float64, requires_grad=True),
         engine.tensor([0.3, 0.8], dtype=engine.float64, requires_grad=True)))


@pytest.mark.torch
def test_against_torch(engine):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a = rng.normal(size=(4, 5))
    a[1, 2] = np.nan
    T, E = torch.tensor(a), engine.tensor(a)
    for q in (0.0, 0.3, 1.0):
        for mode in ("linear", "lower", "higher", "midpoint", "nearest"):
            for dim in (None, 0, 1):
                for fn in ("quantile", "nanquantile"):
                    mine = getattr(engine, fn)(E, q, dim=dim, keepdim=True, interpolation=mode)
                    theirs = getattr(torch, fn)(T, q, dim=dim, keepdim=True,
                                                interpolation=mode)
                    np.testing.assert_allclose(_np(mine), theirs.numpy(), rtol=1e-12,
                                               equal_nan=True)
    np.testing.assert_allclose(_np(engine.nanmean(E, 0)), torch.nanmean(T, 0).numpy())
    i = rng.integers(0, 5, size=(3, 4))
    for kw in ({}, {"dim": 0}, {"dim": 1}):
        mine = engine.unique(engine.tensor(i), return_inverse=True, return_counts=True, **kw)
        theirs = torch.unique(torch.tensor(i), return_inverse=True, return_counts=True, **kw)
        assert [_np(m).tolist() for m in mine] == [t.tolist() for t in theirs]
    b = rng.normal(size=(3, 2))
    assert _np(engine.kron(E.nan_to_num(), engine.tensor(b))).shape == tuple(
        torch.kron(T.nan_to_num(), torch.tensor(b)).shape)
    np.testing.assert_allclose(_np(engine.kron(engine.tensor(b), engine.tensor(b))),
                               torch.kron(torch.tensor(b), torch.tensor(b)).numpy())
    h = rng.normal(size=50)
    np.testing.assert_allclose(_np(engine.histc(engine.tensor(h), bins=7)),
                               torch.histc(torch.tensor(h), bins=7).numpy())
