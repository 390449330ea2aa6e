"""Hessian of a small loss with autograd.functional.hessian, its spectrum, and an HVP."""

import numpy as np


def main(torch, steps=3):
    hessian = torch.autograd.functional.hessian

    rng = np.random.default_rng(0)
    A = torch.tensor(rng.standard_normal((5, 4)), dtype=torch.float64)
    b = torch.tensor(rng.standard_normal(5), dtype=torch.float64)
    w = torch.tensor(rng.standard_normal(4), dtype=torch.float64)

    def loss_fn(w):
        r = torch.tanh(A @ w) - b
        return (r * r).sum() + 0.1 * (w * w).sum()

    out = []
    for _ in range(steps):
        H = hessian(loss_fn, w)
        out.extend(H.reshape(-1).tolist())
        Hs = 0.5 * (H + H.T)
        out.extend(np.linalg.eigvalsh(np.array(Hs.tolist())).tolist())
        # Hessian-vector product by double backward agrees with H @ v
        wg = w.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(loss_fn(wg), wg, create_graph=True)
        v = torch.ones(4, dtype=torch.float64)
        (hvp,) = torch.autograd.grad((g * v).sum(), wg)
        out.extend(hvp.tolist())
        out.extend((H @ v).tolist())
        # a gradient step
        with torch.no_grad():
            w = w - 0.5 * g.detach()
    return out
