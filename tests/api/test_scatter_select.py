"""scatter_reduce "prod"/"amax"/"amin" and index_reduce (Note [scatter_reduce kernels] in
_api/scatter.py) on both engines: by hand, an index smaller than self, zeros for prod, and
gradgradcheck; masked_scatter's broadcasting of input and mask, as torch's."""

import numpy as np
import pytest


def test_by_hand(engine):
    tg = engine
    x = tg.tensor([1.0, 2.0, 3.0], dtype=tg.float64)
    i = tg.tensor([0, 0, 2, 2])
    s = tg.tensor([5.0, -1.0, 0.5, 4.0], dtype=tg.float64)
    np.testing.assert_array_equal(tg.scatter_reduce(x, 0, i, s, "amax").numpy(), [5.0, 2.0, 4.0])
    np.testing.assert_array_equal(
        tg.scatter_reduce(x, 0, i, s, "amin", include_self=False).numpy(), [-1.0, 2.0, 0.5])
    np.testing.assert_array_equal(tg.scatter_reduce(x, 0, i, s, "prod").numpy(),
                                  [-5.0, 2.0, 6.0])
    np.testing.assert_array_equal(
        tg.index_reduce(x, 0, tg.tensor([2, 0]), tg.tensor([2.0, 7.0], dtype=tg.float64),
                        "amax").numpy(), [7.0, 2.0, 3.0])


def test_index_smaller_than_self_keeps_the_rest(engine):
    tg = engine
    x = tg.tensor(np.arange(12.0).reshape(3, 4))
    i = tg.tensor([[1, 0], [2, 2]])
    s = tg.tensor([[10.0, -1.0], [0.5, 20.0]], dtype=tg.float64)
    out = tg.scatter_reduce(x, 1, i, s, "amax").numpy()
    want = np.arange(12.0).reshape(3, 4)
    want[0, 1], want[0, 0] = 10.0, 0.0
    want[1, 2] = 20.0
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("reduce", ["prod", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_gradgradcheck(engine, reduce, include_self):
    tg = engine
    rng = np.random.default_rng(0)
    x = tg.tensor(rng.uniform(-2, 2, (3, 4)), requires_grad=True)
    s = tg.tensor(rng.uniform(-2, 2, (3, 5)), requires_grad=True)
    if reduce == "prod":  # a zero in src and in self
        x = tg.tensor(np.where(np.arange(12).reshape(3, 4) == 5, 0.0, x.detach().numpy()),
                      requires_grad=True)
    i = tg.tensor(rng.integers(0, 4, (3, 5)))

    def f(a, b):
        return tg.scatter_reduce(a, 1, i, b, reduce, include_self=include_self)

    assert tg.autograd.gradcheck(f, (x, s))
    assert tg.autograd.gradgradcheck(f, (x, s))


def test_matches_torch_on_a_partial_index():
    torch = pytest.importorskip("torch")
    import transgrad.reference as tg

    rng = np.random.default_rng(1)
    a, b = rng.uniform(-2, 2, (4, 5)), rng.uniform(-2, 2, (3, 3))
    i = rng.integers(0, 5, (2, 3))
    for r in ("prod", "amax", "amin"):
        ours = tg.scatter_reduce(tg.tensor(a), 1, tg.tensor(i), tg.tensor(b), r).numpy()
        theirs = torch.tensor(a).scatter_reduce(1, torch.tensor(i), torch.tensor(b), r).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-14)


@pytest.mark.parametrize("xshape,mshape", [((5,), (4, 5)), ((4, 1), (5,)), ((2, 3), (2, 3))])
def test_masked_scatter_broadcasts_input_and_mask_as_torch(engine, xshape, mshape):
    torch = pytest.importorskip("torch")
    tg = engine
    rng = np.random.default_rng(2)
    x, m, src = rng.standard_normal(xshape), rng.random(mshape) < 0.5, rng.standard_normal(30)
    want = torch.masked_scatter(torch.tensor(x), torch.tensor(m), torch.tensor(src))
    got = tg.masked_scatter(tg.tensor(x), tg.tensor(m), tg.tensor(src))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    xt, st = tg.tensor(x, requires_grad=True), tg.tensor(src, requires_grad=True)
    assert tg.autograd.gradcheck(lambda a, b: tg.masked_scatter(a, tg.tensor(m), b), (xt, st))


def test_masked_scatter_refuses_a_mask_not_bool_in_torchs_words(engine):
    x = engine.zeros(3)
    with pytest.raises(RuntimeError, match="masked_scatter_ only supports boolean masks, but "
                                           "got mask with dtype Float"):
        engine.masked_scatter(x, engine.ones(3), x)
