"""A tiny DDPM on a 2-D ring: a linear beta schedule, a sinusoidal time embedding, an MLP that
predicts the noise, MSE training with AdamW, then ancestral sampling. Timesteps (randint),
noise (randn) and the initial weights all come from the seeded generator."""

import math


def main(torch, steps=40, sample_steps=50):
    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        torch.manual_seed(2)
        T = sample_steps
        betas = torch.linspace(1e-4, 0.05, T)
        alphas = 1 - betas
        alpha_bar = torch.cumprod(alphas, 0)
        nn = torch.nn

        class Denoiser(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Sequential(nn.Linear(2 + 16, 64), nn.SiLU(), nn.Linear(64, 64),
                                         nn.SiLU(), nn.Linear(64, 2))

            def forward(self, x, t):
                freqs = torch.exp(-math.log(1000.0) * torch.arange(8) / 8)
                angles = t.unsqueeze(1) * freqs.unsqueeze(0)
                emb = torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)
                return self.net(torch.cat([x, emb], dim=1))

        model = Denoiser()
        opt = torch.optim.AdamW(model.parameters(), lr=2e-3)

        def data(n):
            theta = torch.rand(n) * 2 * math.pi
            return torch.stack([torch.cos(theta), torch.sin(theta)], 1)

        losses = []
        for _ in range(steps):
            x0 = data(128)
            t = torch.randint(0, T, (128,))
            noise = torch.randn_like(x0)
            ab = alpha_bar[t].unsqueeze(1)
            xt = ab.sqrt() * x0 + (1 - ab).sqrt() * noise
            loss = nn.functional.mse_loss(model(xt, t.to(torch.float64)), noise)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        with torch.no_grad():
            x = torch.randn(16, 2)
            for step in reversed(range(T)):
                t = torch.full((16,), float(step))
                eps = model(x, t)
                x = (x - betas[step] / (1 - alpha_bar[step]).sqrt() * eps) / alphas[step].sqrt()
                if step > 0:
                    x = x + betas[step].sqrt() * torch.randn_like(x)
        losses += x.reshape(-1).tolist()
        return losses
    finally:
        torch.set_default_dtype(prev)
