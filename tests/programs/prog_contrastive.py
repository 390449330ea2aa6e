"""A SimCLR-style contrastive learner with a CycleGAN-style residual encoder block:
``nn.ReflectionPad2d`` + Conv2d + ``nn.InstanceNorm2d`` residual blocks, two augmented views
(flips with ``torch.flip``, noise), a projection head, ``F.normalize``, the NT-Xent loss built
from a cosine-similarity matrix with the diagonal masked by ``masked_fill`` and labels from
``torch.arange``, ``nn.CosineSimilarity`` for the positive pairs, SGD with
``CosineAnnealingWarmRestarts``, top-1 retrieval accuracy with ``topk``."""


def main(torch, steps=6):
    nn = torch.nn
    F = torch.nn.functional

    class ResnetBlock(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.conv_block = nn.Sequential(
                nn.ReflectionPad2d(1), nn.Conv2d(dim, dim, kernel_size=3, bias=True),
                nn.InstanceNorm2d(dim), nn.ReLU(True),
                nn.ReflectionPad2d(1), nn.Conv2d(dim, dim, kernel_size=3, bias=True),
                nn.InstanceNorm2d(dim),
            )

        def forward(self, x):
            return x + self.conv_block(x)

    class Encoder(nn.Module):
        def __init__(self, dim=4, proj=6):
            super().__init__()
            self.stem = nn.Sequential(nn.ReplicationPad2d(2), nn.Conv2d(1, dim, 5),
                                      nn.InstanceNorm2d(dim, affine=True), nn.ReLU(True))
            self.blocks = nn.Sequential(*[ResnetBlock(dim) for _ in range(2)])
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.head = nn.Sequential(nn.Linear(dim, 8), nn.ReLU(), nn.Linear(8, proj))

        def forward(self, x):
            h = self.pool(self.blocks(self.stem(x))).flatten(1)
            return self.head(h)

    def nt_xent(z1, z2, temperature=0.5):
        n = z1.size(0)
        z = F.normalize(torch.cat([z1, z2], dim=0), dim=1)
        sim = z @ z.T / temperature
        mask = torch.eye(2 * n, dtype=torch.bool)
        sim = sim.masked_fill(mask, float("-inf"))
        labels = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
        return F.cross_entropy(sim, labels)

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        torch.manual_seed(5)
        model = Encoder()
        images = torch.randn(6, 1, 6, 6)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=1)
        cos = nn.CosineSimilarity(dim=1)
        out = []
        for step in range(steps):
            view1 = torch.flip(images, dims=[3]) + 0.1 * torch.randn_like(images)
            view2 = images + 0.1 * torch.randn_like(images)
            z1, z2 = model(view1), model(view2)
            loss = nt_xent(z1, z2)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step(step + 1)
            out += [loss.item(), cos(z1, z2).mean().item(), sched.get_last_lr()[0]]
        model.eval()
        with torch.no_grad():
            a = F.normalize(model(images), dim=-1)
            b = F.normalize(model(torch.flip(images, dims=[3])), dim=-1)
            top = (a @ b.T).topk(1, dim=1).indices.squeeze(1)
            out.append((top == torch.arange(6)).float().mean().item())
            out.append(F.cosine_similarity(a, b).sum().item())
        return out
    finally:
        torch.set_default_dtype(prev)
