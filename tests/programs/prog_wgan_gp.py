"""WGAN-GP on a mixture of 8 Gaussians in the plane: critic and generator MLPs, the gradient
penalty through autograd.grad(create_graph=True) on interpolates, Adam(betas=(0.5, 0.9)),
five critic steps per generator step. Everything random comes from the seeded generator."""

import math


def main(torch, gen_steps=12):
    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        torch.manual_seed(1)
        nn = torch.nn
        gen = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(),
                            nn.Linear(32, 2))
        critic = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 32),
                               nn.LeakyReLU(0.2), nn.Linear(32, 1))
        opt_g = torch.optim.Adam(gen.parameters(), lr=1e-3, betas=(0.5, 0.9))
        opt_c = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))
        centers = torch.tensor([[math.cos(2 * math.pi * k / 8), math.sin(2 * math.pi * k / 8)]
                                for k in range(8)]) * 2.0

        def real(n):
            idx = torch.randint(0, 8, (n,))
            return centers[idx] + 0.05 * torch.randn(n, 2)

        losses = []
        for _ in range(gen_steps):
            for _ in range(5):
                x = real(64)
                fake = gen(torch.randn(64, 2)).detach()
                eps = torch.rand(64, 1)
                mix = (eps * x + (1 - eps) * fake).requires_grad_(True)
                g, = torch.autograd.grad(critic(mix).sum(), mix, create_graph=True)
                penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
                loss_c = critic(fake).mean() - critic(x).mean() + 10 * penalty
                opt_c.zero_grad()
                loss_c.backward()
                opt_c.step()
            loss_g = -critic(gen(torch.randn(64, 2))).mean()
            opt_g.zero_grad()
            loss_g.backward()
            opt_g.step()
            losses += [loss_c.item(), loss_g.item()]
        return losses
    finally:
        torch.set_default_dtype(prev)
