"""MAML on sine regression: an inner SGD step through autograd.grad(create_graph=True), the outer
loss differentiated through it (second order), Adam as the meta-optimizer. The tasks, the data
and the model's initial weights all come from the seeded generator."""

import math


def main(torch, meta_steps=25):
    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(1, 40), torch.nn.ReLU(),
                                    torch.nn.Linear(40, 40), torch.nn.ReLU(),
                                    torch.nn.Linear(40, 1))
        params = list(model.parameters())
        meta_opt = torch.optim.Adam(params, lr=1e-3)
        inner_lr = 0.01

        def forward(x, weights):
            h = x
            for i in range(0, len(weights) - 2, 2):
                h = torch.relu(torch.nn.functional.linear(h, weights[i], weights[i + 1]))
            return torch.nn.functional.linear(h, weights[-2], weights[-1])

        def task():
            amp = torch.rand(1).item() * 4.9 + 0.1
            phase = torch.rand(1).item() * math.pi
            x = torch.rand(20, 1) * 10 - 5
            return x, amp * torch.sin(x + phase)

        losses = []
        for _ in range(meta_steps):
            meta_opt.zero_grad()
            total = 0.0
            for _ in range(4):
                x, y = task()
                xs, ys, xq, yq = x[:10], y[:10], x[10:], y[10:]
                inner = torch.nn.functional.mse_loss(forward(xs, params), ys)
                grads = torch.autograd.grad(inner, params, create_graph=True)
                fast = [p - inner_lr * g for p, g in zip(params, grads)]
                outer = torch.nn.functional.mse_loss(forward(xq, fast), yq)
                (outer / 4).backward()
                total += outer.item() / 4
            meta_opt.step()
            losses.append(total)
        return losses
    finally:
        torch.set_default_dtype(prev)
