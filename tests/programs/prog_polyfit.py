"""Polynomial fit with hand-written gradient descent (torch.no_grad, p -= lr * p.grad)."""

import numpy as np


def main(torch, steps=60):
    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rng = np.random.default_rng(0)
        xs = np.linspace(-1.0, 1.0, 50)
        ys = 0.5 - 1.5 * xs + 2.0 * xs**3 + 0.05 * rng.standard_normal(50)
        x = torch.tensor(xs)
        y = torch.tensor(ys)

        coeffs = [torch.tensor(float(c), requires_grad=True) for c in rng.standard_normal(4)]
        lr = 0.1
        losses = []
        for _ in range(steps):
            pred = coeffs[0] + coeffs[1] * x + coeffs[2] * x**2 + coeffs[3] * x.pow(3)
            loss = ((pred - y) ** 2).mean()
            loss.backward()
            with torch.no_grad():
                for p in coeffs:
                    p -= lr * p.grad
                    p.grad.zero_()
            losses.append(loss.item())
        return losses
    finally:
        torch.set_default_dtype(prev)
