"""A small VAE: reparameterised sample with explicit noise, kl_divergence(Normal, Normal)."""

import numpy as np


def main(torch, steps=20):
    nn = torch.nn
    F = torch.nn.functional
    Normal, kl_divergence = torch.distributions.Normal, torch.distributions.kl_divergence

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Linear(6, 8)
            self.mu = nn.Linear(8, 2)
            self.logvar = nn.Linear(8, 2)
            self.dec = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 6))

        def forward(self, x, eps):
            h = torch.relu(self.enc(x))
            mu, logvar = self.mu(h), self.logvar(h)
            std = torch.exp(0.5 * logvar)
            z = mu + std * eps
            return self.dec(z), mu, std

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rng = np.random.default_rng(0)
        model = VAE()
        model.load_state_dict({k: torch.tensor(0.3 * rng.standard_normal(tuple(v.shape)))
                               for k, v in model.state_dict().items()})
        data = torch.tensor(rng.standard_normal((16, 6)))
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        prior = Normal(torch.zeros(2), torch.ones(2))
        losses = []
        for _ in range(steps):
            eps = torch.tensor(rng.standard_normal((16, 2)))
            recon, mu, std = model(data, eps)
            rec = F.mse_loss(recon, data, reduction="sum") / data.shape[0]
            kl = kl_divergence(Normal(mu, std), prior).sum(dim=1).mean()
            loss = rec + kl
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses
    finally:
        torch.set_default_dtype(prev)
