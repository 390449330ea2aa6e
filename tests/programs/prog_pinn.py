"""Physics-informed net: u'(x) = cos(x), u(0) = 0, derivatives by autograd.grad, LBFGS."""

import numpy as np


def main(torch, steps=5):
    nn = torch.nn
    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rng = np.random.default_rng(0)
        model = nn.Sequential(nn.Linear(1, 10), nn.Tanh(), nn.Linear(10, 10), nn.Tanh(),
                              nn.Linear(10, 1))
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(torch.tensor(0.5 * rng.standard_normal(tuple(p.shape))))
        x = torch.tensor(np.linspace(0.0, 3.0, 25).reshape(-1, 1), requires_grad=True)
        x0 = torch.zeros(1, 1)
        opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=5, history_size=5)

        def closure():
            opt.zero_grad()
            u = model(x)
            (du,) = torch.autograd.grad(u.sum(), x, create_graph=True)
            residual = du - torch.cos(x)
            loss = residual.pow(2).mean() + model(x0).pow(2).sum()
            loss.backward()
            return loss

        losses = []
        for _ in range(steps):
            loss = opt.step(closure)
            losses.append(loss.item())
        return losses
    finally:
        torch.set_default_dtype(prev)
