"""Optional: the same programs in transgrad and torch give the same values, first and second
order gradients (skipped when torch is not installed)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch

RNG = np.random.default_rng(7)

# Each program is written once against the shared API (a module: tg or torch).
PROGRAMS = {
    "mlp": (lambda m, x, w, b: m.tanh(x @ w + b).sum(), [(4, 3), (3, 2), (2,)]),
    "softmax_ce": (lambda m, x, w, b: -(m.log_softmax(x @ w, 1)[:, 0]).mean() + (b * b).sum(),
                   [(4, 3), (3, 2), (2,)]),
    "index_mix": (lambda m, x, w, b: (x[1:, [0, 2]] * w[:2, :]).sum() + x[x > 0].sum() * b[0],
                  [(3, 3), (3, 2), (2,)]),
    "reductions": (lambda m, x, w, b: x.amax(1).sum() + x.logsumexp(0).mean() * w.std()
                   + b.norm(), [(3, 4), (2, 2), (3,)]),
    "shapes": (lambda m, x, w, b: (m.cat([x.T, w], 1).reshape(-1, 5).permute(1, 0)
                                   .unsqueeze(0).expand(3, -1, -1) ** 2).sum() * b.sum(),
               [(3, 3), (3, 2), (2,)]),
    "where_clamp": (lambda m, x, w, b: (m.where(x > 0.1, x.exp(), x.clamp(-0.5, 0.5))
                                        * m.maximum(w, b)).sum(), [(2, 2), (2, 2), (2,)]),
    "div_pow": (lambda m, x, w, b: ((x.abs() + 1) ** w.sigmoid() / (b.exp() + 1)).sum(),
                [(2, 2), (2, 2), (2,)]),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_values_and_gradients_match_torch(engine, name):
    tg = engine
    fn, shapes = PROGRAMS[name]
    arrays = [RNG.standard_normal(s) for s in shapes]
    ours = [tg.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y, ty = fn(tg, *ours), fn(torch, *theirs)
    np.testing.assert_allclose(y.item(), ty.item(), rtol=1e-10)
    g = tg.autograd.grad(y, ours, create_graph=True)
    tgr = torch.autograd.grad(ty, theirs, create_graph=True)
    for a, b in zip(g, tgr):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-9, atol=1e-12)
    # second order: gradient of a weighted sum of the first-order gradients
    vs = [RNG.standard_normal(s) for s in shapes]
    s = sum((gi * tg.tensor(v)).sum() for gi, v in zip(g, vs))
    ts = sum((gi * torch.tensor(v)).sum() for gi, v in zip(tgr, vs))
    g2 = tg.autograd.grad(s, ours, allow_unused=True)
    tg2 = torch.autograd.grad(ts, theirs, allow_unused=True)
    for a, b in zip(g2, tg2):
        a = np.zeros_like(vs[0]) if a is None else a.detach().numpy()
        b = np.zeros_like(a) if b is None else b.detach().numpy()
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
