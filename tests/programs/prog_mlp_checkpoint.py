"""MLP classifier: DataLoader, Sequential, CrossEntropyLoss, SGD+momentum, StepLR, checkpoint."""

import os
import tempfile

import numpy as np


def main(torch, steps=4):
    nn = torch.nn
    from_data = torch.utils.data
    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rng = np.random.default_rng(0)
        xs = rng.standard_normal((64, 4))
        labels = (xs[:, 0] + xs[:, 1] > 0).astype(np.int64) + (xs[:, 2] > 1).astype(np.int64)
        init = [0.3 * rng.standard_normal(s) for s in [(16, 4), (16,), (3, 16), (3,)]]
        ds = from_data.TensorDataset(torch.tensor(xs), torch.tensor(labels))
        loader = from_data.DataLoader(ds, batch_size=16, shuffle=False)

        def make():
            model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
            opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
            return model, opt, sched

        model, opt, sched = make()
        names = ["0.weight", "0.bias", "2.weight", "2.bias"]
        model.load_state_dict({n: torch.tensor(w) for n, w in zip(names, init)})
        loss_fn = nn.CrossEntropyLoss()
        losses = []
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "ckpt.pt")
            for epoch in range(steps):
                if epoch == steps // 2:
                    torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, path)
                    sched_state = sched.state_dict()
                    model, opt, sched = make()
                    ckpt = torch.load(path)
                    model.load_state_dict(ckpt["model"])
                    opt.load_state_dict(ckpt["opt"])
                    sched.load_state_dict(sched_state)
                for xb, yb in loader:
                    opt.zero_grad()
                    loss = loss_fn(model(xb), yb)
                    loss.backward()
                    opt.step()
                    losses.append(loss.item())
                sched.step()
        return losses
    finally:
        torch.set_default_dtype(prev)
