"""A dense autoencoder on a ``TensorDataset`` split by ``random_split`` (fractions, a seeded
generator), DataLoaders with ``drop_last``, an encoder/decoder ``nn.Sequential`` with
``nn.Flatten``/``nn.Unflatten``, MSELoss(reduction="sum") averaged by hand, Adam with
``ReduceLROnPlateau``, a validation loop under ``torch.inference_mode()``, ``.numpy()`` of a
detached reconstruction, and ``torch.save``/``torch.load`` of the state to a file path."""

import os
import tempfile

import numpy as np


def main(torch, epochs=5):
    nn = torch.nn
    TensorDataset = torch.utils.data.TensorDataset
    DataLoader = torch.utils.data.DataLoader
    random_split = torch.utils.data.random_split

    class AutoEncoder(nn.Module):
        def __init__(self, latent=3):
            super().__init__()
            self.encoder = nn.Sequential(nn.Flatten(), nn.Linear(16, 8), nn.ReLU(),
                                         nn.Linear(8, latent))
            self.decoder = nn.Sequential(nn.Linear(latent, 8), nn.ReLU(), nn.Linear(8, 16),
                                         nn.Sigmoid(), nn.Unflatten(1, (1, 4, 4)))

        def forward(self, x):
            z = self.encoder(x)
            return self.decoder(z), z

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        torch.manual_seed(21)
        base = torch.rand(4, 1, 4, 4)
        images = (base[torch.randint(0, 4, (60,))] + 0.05 * torch.randn(60, 1, 4, 4)).clamp(0, 1)
        dataset = TensorDataset(images, torch.zeros(60, dtype=torch.long))
        train_set, val_set = random_split(dataset, [0.8, 0.2],
                                          generator=torch.Generator().manual_seed(42))
        train_loader = DataLoader(train_set, batch_size=10, shuffle=True, drop_last=True)
        val_loader = DataLoader(val_set, batch_size=5)
        model = AutoEncoder()
        criterion = nn.MSELoss(reduction="sum")
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
        scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min",
                                                               factor=0.5, patience=0)
        out = [float(len(train_set)), float(len(val_set)), float(len(train_loader))]
        for _epoch in range(epochs):
            model.train()
            running = 0.0
            for _batch_idx, (data, _) in enumerate(train_loader):
                optimizer.zero_grad()
                recon, _ = model(data)
                loss = criterion(recon, data) / data.size(0)
                loss.backward()
                optimizer.step()
                running += loss.item()
            model.eval()
            val_loss = 0.0
            with torch.inference_mode():
                for data, _ in val_loader:
                    recon, _ = model(data)
                    val_loss += criterion(recon, data).item()
            val_loss /= len(val_loader.dataset)
            scheduler.step(val_loss)
            out += [running / len(train_loader), val_loss, optimizer.param_groups[0]["lr"]]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "ae.pth")
            torch.save(model.state_dict(), path)
            clone = AutoEncoder()
            missing = clone.load_state_dict(torch.load(path, weights_only=True))
            out.append(float(len(missing.missing_keys) + len(missing.unexpected_keys)))
        sample = val_set[0][0].unsqueeze(0)
        recon = clone(sample)[0].detach().cpu().numpy()
        out.append(float(np.abs(recon - sample.numpy()).mean()))
        out.append(float(recon.shape == (1, 1, 4, 4)))
        return out
    finally:
        torch.set_default_dtype(prev)
