"""A small convolutional autoencoder with a classifier head: reflect-padded Conv2d, GroupNorm,
SiLU, PixelUnshuffle / PixelShuffle, ConvTranspose2d, bilinear Upsample, InstanceNorm2d,
Hardswish, Dropout2d (eval), AdaptiveMaxPool2d; Huber reconstruction loss plus
label-smoothed cross entropy, AdamW."""

import numpy as np


def main(torch, steps=10):
    nn = torch.nn
    F = torch.nn.functional

    class AutoEncoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Sequential(
                nn.Conv2d(1, 4, 3, padding=1, padding_mode="reflect"), nn.GroupNorm(2, 4),
                nn.SiLU(), nn.PixelUnshuffle(2),                      # (16, 4, 4)
                nn.Conv2d(16, 8, 3, padding=1), nn.Hardswish())
            self.dec = nn.Sequential(
                nn.ConvTranspose2d(8, 4, 2, stride=2),                # (4, 8, 8)
                nn.InstanceNorm2d(4, affine=True), nn.Mish(),
                nn.Conv2d(4, 4, 3, padding=1), nn.PixelShuffle(2),    # (1, 16, 16)
                nn.Upsample(size=(8, 8), mode="bilinear", align_corners=False))
            self.head = nn.Sequential(nn.Dropout2d(0.3), nn.AdaptiveMaxPool2d(2), nn.Flatten(),
                                      nn.Linear(32, 3))

        def forward(self, x):
            z = self.enc(x)
            return self.dec(z), self.head(z)

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rng = np.random.default_rng(0)
        model = AutoEncoder()
        state = {k: torch.tensor(0.3 * rng.standard_normal(tuple(v.shape)))
                 for k, v in model.state_dict().items()}
        model.load_state_dict(state)
        images = rng.standard_normal((6, 1, 8, 8))
        labels = rng.integers(0, 3, 6)
        x = torch.tensor(images)
        y = torch.tensor(labels.astype(np.int64))
        opt = torch.optim.AdamW(model.parameters(), lr=0.01)
        model.eval()  # Dropout2d off: both libraries must draw the same (no) masks
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            recon, logits = model(x)
            loss = (F.huber_loss(recon, x, delta=0.5)
                    + F.cross_entropy(logits, y, label_smoothing=0.1))
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses
    finally:
        torch.set_default_dtype(prev)
