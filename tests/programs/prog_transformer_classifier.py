"""A sequence classifier built from nn.TransformerEncoder (batch_first, norm_first, GELU, a
key padding mask for the shorter sequences, a final LayerNorm), mean-pooled over the real
tokens; AdamW with weight decay; dropout 0 so that the loss curve is deterministic."""

import numpy as np


def main(torch, steps=10):
    nn = torch.nn
    F = torch.nn.functional
    V, D, T, CLASSES = 7, 8, 6, 3

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, D)
            self.pos = nn.Parameter(torch.zeros(T, D))
            layer = nn.TransformerEncoderLayer(D, 2, dim_feedforward=16, dropout=0.0,
                                               activation="gelu", batch_first=True,
                                               norm_first=True)
            self.encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(D),
                                                 enable_nested_tensor=False)
            self.head = nn.Linear(D, CLASSES)

        def forward(self, idx, pad):
            h = self.encoder(self.emb(idx) + self.pos, src_key_padding_mask=pad)
            keep = (~pad).to(h.dtype).unsqueeze(-1)
            return self.head((h * keep).sum(1) / keep.sum(1))

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rng = np.random.default_rng(0)
        model = Classifier()
        model.load_state_dict({k: torch.tensor(0.3 * rng.standard_normal(tuple(v.shape)))
                               for k, v in model.state_dict().items()})
        idx = rng.integers(0, V, size=(9, T))
        lengths = rng.integers(3, T + 1, size=9)
        pad = np.arange(T)[None, :] >= lengths[:, None]
        labels = idx[:, 0] % CLASSES               # the class is told by the first token
        x, p, y = torch.tensor(idx), torch.tensor(pad), torch.tensor(labels)
        opt = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            loss = F.cross_entropy(model(x, p), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses
    finally:
        torch.set_default_dtype(prev)
