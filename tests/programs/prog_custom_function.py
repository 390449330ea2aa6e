"""A custom autograd.Function (straight-through clamp and a cube) inside a small model."""

import numpy as np


def main(torch, steps=40):
    nn = torch.nn

    class StraightThroughClamp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, lo, hi):
            return x.clamp(lo, hi)

        @staticmethod
        def backward(ctx, grad_out):
            return grad_out, None, None

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return grad_out * 3 * x * x

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(3, 8)
            self.fc2 = nn.Linear(8, 1)

        def forward(self, x):
            h = StraightThroughClamp.apply(self.fc1(x), -1.0, 1.0)
            return self.fc2(Cube.apply(h))

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rng = np.random.default_rng(0)
        model = Net()
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(torch.tensor(0.5 * rng.standard_normal(tuple(p.shape))))
        x = torch.tensor(rng.standard_normal((32, 3)))
        y = torch.tensor(np.sin(rng.standard_normal((32, 1))))
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses
    finally:
        torch.set_default_dtype(prev)
