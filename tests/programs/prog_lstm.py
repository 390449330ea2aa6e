"""Sequence regression with nn.LSTM (batch_first), gradient clipping and RMSprop."""

import numpy as np


def main(torch, steps=15):
    nn = torch.nn

    class SeqModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(input_size=2, hidden_size=8, batch_first=True)
            self.head = nn.Linear(8, 1)

        def forward(self, x):
            out, (h, c) = self.lstm(x)
            return self.head(out[:, -1, :])

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rng = np.random.default_rng(0)
        model = SeqModel()
        model.load_state_dict({k: torch.tensor(0.3 * rng.standard_normal(tuple(v.shape)))
                               for k, v in model.state_dict().items()})
        seqs = rng.standard_normal((12, 6, 2))
        targets = seqs[:, :, 0].sum(axis=1, keepdims=True) * 0.3
        x, y = torch.tensor(seqs), torch.tensor(targets)
        opt = torch.optim.RMSprop(model.parameters(), lr=0.01)
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(loss.item())
        return losses
    finally:
        torch.set_default_dtype(prev)
