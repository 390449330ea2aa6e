"""Autograd on float16/bfloat16 on both engines: leaves require grad, gradients have the leaf's
dtype (AccumulateGrad, sum_to, cast nodes), values match float64 at the dtype's tolerance
(gradcheck does not apply at half precision)."""

import numpy as np
import pytest

HALVES = ["float16", "bfloat16"]
TOL = {"float16": 2e-2, "bfloat16": 1e-1}


def _program(tg, x, w):
    y = tg.tanh(x @ w) * 2.0 + x.sum(1, keepdim=True)
    return (tg.exp(y * 0.1) + y.abs()).sum()


@pytest.mark.parametrize("name", HALVES)
def test_grads_have_the_leafs_dtype_and_match_float64(engine, name):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    d = getattr(engine, name)
    x = engine.tensor(a, dtype=d, requires_grad=True)
    w = engine.tensor(b, dtype=d, requires_grad=True)
    out = _program(engine, x, w)
    assert out.dtype == d
    out.backward()
    assert x.grad.dtype == d and w.grad.dtype == d
    # the same program in float64 from the same (rounded) values
    x64 = engine.tensor(np.asarray(x.detach()).astype(np.float64), requires_grad=True)
    w64 = engine.tensor(np.asarray(w.detach()).astype(np.float64), requires_grad=True)
    _program(engine, x64, w64).backward()
    for g, g64 in ((x.grad, x64.grad), (w.grad, w64.grad)):
        np.testing.assert_allclose(np.asarray(g).astype(np.float64), np.asarray(g64),
                                   rtol=TOL[name], atol=TOL[name])


@pytest.mark.parametrize("name", HALVES)
def test_mixed_dtypes_cast_gradients_back(engine, name):
    """A half leaf meeting float32: the result is float32, the leaf's grad is half again."""
    d = getattr(engine, name)
    x = engine.tensor([1.0, 2.0, 3.0], dtype=d, requires_grad=True)
    y = engine.tensor([[0.5], [0.25]], requires_grad=True)  # float32, broadcast against x
    z = x * y
    assert z.dtype == engine.float32
    z.sum().backward()
    assert x.grad.dtype == d and y.grad.dtype == engine.float32
    assert np.asarray(x.grad).astype(np.float64).tolist() == [0.75, 0.75, 0.75]
    assert np.asarray(y.grad).tolist() == [[6.0], [6.0]]


@pytest.mark.parametrize("name", HALVES)
def test_cast_node_between_half_and_float(engine, name):
    x = engine.tensor([1.5, -2.0], requires_grad=True)  # float32
    h = x.to(getattr(engine, name))
    assert h.requires_grad and h.grad_fn is not None
    (h * h).sum().backward()
    assert x.grad.dtype == engine.float32
    assert np.asarray(x.grad).tolist() == [3.0, -4.0]


def test_grad_accumulates_in_half(engine):
    x = engine.tensor([1.0, 2.0], dtype=engine.float16, requires_grad=True)
    for _ in range(3):
        (x * 2.0).sum().backward()
    assert x.grad.dtype == engine.float16
    assert np.asarray(x.grad).tolist() == [6.0, 6.0]


def test_half_grads_against_torch(engine):
    torch = pytest.importorskip("torch")
    vals = [[0.5, -1.25, 2.0], [1.0, 0.125, -0.75]]
    for name in HALVES:
        x = engine.tensor(vals, dtype=getattr(engine, name), requires_grad=True)
        tx = torch.tensor(vals, dtype=getattr(torch, name), requires_grad=True)
        (x.sigmoid() * x).sum().backward()
        (tx.sigmoid() * tx).sum().backward()
        np.testing.assert_allclose(np.asarray(x.grad).astype(np.float64),
                                   tx.grad.double().numpy(), rtol=TOL[name], atol=TOL[name])
