"""Regression through a shuffled DataLoader (its own seeded Generator), SGD with momentum and
weight decay, a StepLR schedule, dropout, and a checkpoint saved and loaded half way (model and
optimizer state), the run then continued from the loaded state."""

import os
import tempfile


def main(torch, epochs=6):
    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        torch.manual_seed(3)
        nn = torch.nn
        x = torch.randn(90, 5)
        y = (x @ torch.randn(5, 1)).tanh() + 0.1 * torch.randn(90, 1)
        loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y),
                                             batch_size=16, shuffle=True,
                                             generator=torch.Generator().manual_seed(7))

        def build():
            model = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 1))
            opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
            return model, opt, torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)

        model, opt, sched = build()
        losses = []
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "ckpt.pt")
            for epoch in range(epochs):
                if epoch == epochs // 2:
                    torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                                "sched": sched.state_dict()}, path)
                    model, opt, sched = build()
                    state = torch.load(path)
                    model.load_state_dict(state["model"])
                    opt.load_state_dict(state["opt"])
                    sched.load_state_dict(state["sched"])
                model.train()
                for xb, yb in loader:
                    loss = nn.functional.mse_loss(model(xb), yb)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    losses.append(loss.item())
                sched.step()
                model.eval()
                with torch.no_grad():
                    losses.append(nn.functional.mse_loss(model(x), y).item())
        return losses
    finally:
        torch.set_default_dtype(prev)
