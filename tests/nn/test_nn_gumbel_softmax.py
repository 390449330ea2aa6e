"""F.gumbel_softmax against torch on both engines: after the same seed the same noise (drawn
with exponential_, torch's stream), so the same soft and hard samples and gradients."""

import numpy as np
import pytest

pytestmark = pytest.mark.torch


@pytest.mark.parametrize("kwargs", [{}, {"tau": 0.5, "hard": True}, {"tau": 2.0, "dim": 0},
                                    {"hard": True, "dim": 1}])
def test_gumbel_softmax_matches_torch(lib, kwargs):
    torch = pytest.importorskip("torch")
    logits = np.random.default_rng(2).standard_normal((4, 5))
    weights = np.cos(np.arange(20.0)).reshape(4, 5)
    results = []
    for tg, F in ((lib.tg, lib.F), (torch, torch.nn.functional)):
        tg.manual_seed(123)
        x = tg.tensor(logits, requires_grad=True)
        y = F.gumbel_softmax(x, **kwargs)
        (y * tg.tensor(weights)).sum().backward()
        results.append((np.asarray(y.detach()), np.asarray(x.grad)))
    (y, g), (ty, tgrad) = results
    np.testing.assert_allclose(y, ty, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(g, tgrad, rtol=1e-10, atol=1e-14)
    if kwargs.get("hard"):
        assert set(np.unique(y)) <= {0.0, 1.0}


def test_gumbel_softmax_eps_is_deprecated(lib):
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        lib.F.gumbel_softmax(lib.tg.zeros(2, 3), eps=1e-5)
