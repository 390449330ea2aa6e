"""A GRU sequence-to-sequence regressor (batch_first, 2 layers, initial state from a learned
encoder of the first step), predicting a running mean of its input; Adam, a GRUCell decoder
step at the end, gradient clipping."""

import numpy as np


def main(torch, steps=12):
    nn = torch.nn
    F = torch.nn.functional

    class SeqModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.init = nn.Linear(3, 2 * 6)
            self.gru = nn.GRU(3, 6, num_layers=2, batch_first=True)
            self.cell = nn.GRUCell(6, 6)
            self.head = nn.Linear(6, 1)

        def forward(self, x):
            h0 = torch.tanh(self.init(x[:, 0, :])).reshape(x.shape[0], 2, 6).transpose(0, 1)
            out, h = self.gru(x, h0.contiguous())
            last = self.cell(out[:, -1, :], h[-1])
            return self.head(out).squeeze(-1), self.head(last).squeeze(-1)

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rng = np.random.default_rng(0)
        model = SeqModel()
        model.load_state_dict({k: torch.tensor(0.3 * rng.standard_normal(tuple(v.shape)))
                               for k, v in model.state_dict().items()})
        seqs = rng.standard_normal((8, 7, 3))
        running = np.cumsum(seqs[:, :, 0], axis=1) / np.arange(1, 8)
        x, y = torch.tensor(seqs), torch.tensor(running)
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            per_step, final = model(x)
            loss = F.mse_loss(per_step, y) + F.mse_loss(final, y[:, -1])
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            opt.step()
            losses.append(loss.item())
        return losses
    finally:
        torch.set_default_dtype(prev)
