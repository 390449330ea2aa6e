"""A normalizing flow (RealNVP): affine coupling layers with masks, trained by maximum
likelihood against a MultivariateNormal base; then samples drawn through the inverse flow and
scored with an Independent(Normal) base, as flow code writes it."""

import numpy as np


def main(torch, steps=25):
    nn = torch.nn
    D = torch.distributions

    class Coupling(nn.Module):
        def __init__(self, mask):
            super().__init__()
            self.register_buffer("mask", mask)
            self.net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 4))

        def forward(self, x):  # data -> latent, with log|det J|
            xm = x * self.mask
            s, t = self.net(xm).chunk(2, dim=-1)
            s = torch.tanh(s) * (1 - self.mask)
            t = t * (1 - self.mask)
            z = xm + (1 - self.mask) * (x * torch.exp(s) + t)
            return z, s.sum(dim=-1)

        def inverse(self, z):
            zm = z * self.mask
            s, t = self.net(zm).chunk(2, dim=-1)
            s = torch.tanh(s) * (1 - self.mask)
            t = t * (1 - self.mask)
            return zm + (1 - self.mask) * ((z - t) * torch.exp(-s))

    class Flow(nn.Module):
        def __init__(self):
            super().__init__()
            masks = [torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0])] * 2
            self.layers = nn.ModuleList(Coupling(m) for m in masks)

        def forward(self, x):
            logdet = torch.zeros(x.shape[0])
            for layer in self.layers:
                x, ld = layer(x)
                logdet = logdet + ld
            return x, logdet

        def sample_from(self, z):
            for layer in reversed(self.layers):
                z = layer.inverse(z)
            return z

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rng = np.random.default_rng(3)
        # two noisy arcs ("moons")
        t = rng.uniform(0, np.pi, 64)
        arcs = np.stack([np.cos(t), np.sin(t)], 1)
        arcs[32:] = np.stack([1 - np.cos(t[32:]), 0.5 - np.sin(t[32:])], 1)
        data = torch.tensor(arcs + 0.05 * rng.standard_normal((64, 2)))
        flow = Flow()
        flow.load_state_dict({k: (v if k.endswith("mask") else
                                  torch.tensor(0.3 * rng.standard_normal(tuple(v.shape))))
                              for k, v in flow.state_dict().items()})
        base = D.MultivariateNormal(torch.zeros(2), scale_tril=torch.eye(2))
        opt = torch.optim.Adam(flow.parameters(), lr=0.01)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
        losses = []
        for _ in range(steps):
            z, logdet = flow(data)
            loss = -(base.log_prob(z) + logdet).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            losses.append(loss.item())
        # sampling: fixed latent noise through the inverse, scored by the data-space density
        with torch.no_grad():
            z = torch.tensor(rng.standard_normal((8, 2)))
            x = flow.sample_from(z)
            back, logdet = flow(x)
            diag = D.Independent(D.Normal(torch.zeros(2), torch.ones(2)), 1)
            losses += (diag.log_prob(back) + logdet).tolist()
            losses += x.reshape(-1).tolist()
        return losses
    finally:
        torch.set_default_dtype(prev)
