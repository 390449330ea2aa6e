"""utils.checkpoint: the same outputs and gradients as without it, on both engines, with the
random state of the first run restored for the recomputation (dropout)."""

import numpy as np
import pytest
from transgrad.utils.checkpoint import checkpoint, checkpoint_sequential


def _grads(net, x):
    return [np.asarray(p.grad).copy() for p in net.parameters()] + [np.asarray(x.grad).copy()]


def _net(engine):
    engine.manual_seed(0)
    return engine.nn.Sequential(engine.nn.Linear(4, 8), engine.nn.Tanh(), engine.nn.Dropout(0.3),
                                engine.nn.Linear(8, 8), engine.nn.ReLU(), engine.nn.Linear(8, 2))


@pytest.mark.parametrize("how", ["checkpoint", "sequential", "kwargs"])
def test_checkpoint_matches_plain_backward(engine, how):
    net = _net(engine)
    x = engine.randn(5, 4, requires_grad=True)
    engine.manual_seed(1)
    plain = net(x).sum()
    plain.backward()
    want = _grads(net, x)
    net.zero_grad()
    x.grad = None
    engine.manual_seed(1)
    if how == "checkpoint":
        out = checkpoint(net, x, use_reentrant=True)
    elif how == "sequential":
        out = checkpoint_sequential(net, 3, x, use_reentrant=True)
    else:
        out = checkpoint(lambda a, scale: net(a) * scale, x, use_reentrant=True, scale=1.0)
    assert out.grad_fn is not None and float(out.sum()) == float(plain)
    out.sum().backward()
    for a, b in zip(_grads(net, x), want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert engine.utils.checkpoint.checkpoint is checkpoint


def test_checkpoint_errors(engine):
    with pytest.raises(ValueError, match="at least one tensor"):
        checkpoint(lambda: 1.0)
    x = engine.ones(2)  # the checkpointed input needs no grad; the outer sum still works
    y = engine.ones(2, requires_grad=True)
    out = checkpoint(lambda a: a * 2, x, use_reentrant=True) + y
    out.sum().backward()
    assert np.asarray(y.grad).tolist() == [1.0, 1.0]
