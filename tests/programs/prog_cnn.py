"""A small CNN: Conv2d + BatchNorm2d + MaxPool2d, Adam, clip_grad_norm_, CosineAnnealingLR, eval."""

import numpy as np


def main(torch, steps=12):
    nn = torch.nn
    F = torch.nn.functional

    class ConvNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, kernel_size=3, padding=1)
            self.bn1 = nn.BatchNorm2d(4)
            self.conv2 = nn.Conv2d(4, 6, kernel_size=3)
            self.fc = nn.Linear(6 * 2 * 2, 2)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
            x = nn.functional.relu(self.conv2(x))
            return self.fc(torch.flatten(x, 1))

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rng = np.random.default_rng(0)
        model = ConvNet()
        state = {}
        for k, v in model.state_dict().items():
            if k.endswith(("weight", "bias")) and not k.startswith("bn"):
                state[k] = torch.tensor(0.3 * rng.standard_normal(tuple(v.shape)))
            else:
                state[k] = v
        model.load_state_dict(state)
        images = rng.standard_normal((20, 1, 8, 8))
        labels = (images[:, 0, :4].mean(axis=(1, 2)) > images[:, 0, 4:].mean(axis=(1, 2)))
        x = torch.tensor(images)
        y = torch.tensor(labels.astype(np.int64))
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
        losses = []
        model.train()
        for _ in range(steps):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            opt.step()
            sched.step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            test_loss = F.cross_entropy(model(x), y).item()
            acc = (model(x).argmax(dim=1) == y).double().mean().item()
        return losses + [test_loss, acc, float(model.bn1.running_mean.sum())]
    finally:
        torch.set_default_dtype(prev)
