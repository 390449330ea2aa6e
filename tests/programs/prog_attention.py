"""A one-block transformer written by hand: causal self-attention with masked_fill + softmax,
residuals, LayerNorm, Dropout (eval), Adam with weight decay, on a copy task."""

import math

import numpy as np


def main(torch, steps=20):
    nn = torch.nn
    F = torch.nn.functional
    V, D, T = 6, 8, 5

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, D)
            self.pos = nn.Parameter(torch.zeros(T, D))
            self.qkv = nn.Linear(D, 3 * D)
            self.proj = nn.Linear(D, D)
            self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
            self.mlp = nn.Sequential(nn.Linear(D, 2 * D), nn.GELU(), nn.Linear(2 * D, D))
            self.drop = nn.Dropout(0.1)
            self.out = nn.Linear(D, V)
            self.register_buffer("mask", torch.tril(torch.ones(T, T)).bool())

        def forward(self, idx):
            x = self.emb(idx) + self.pos
            q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
            att = (q @ k.transpose(-2, -1)) / math.sqrt(D)
            att = att.masked_fill(~self.mask, float("-inf")).softmax(dim=-1)
            x = x + self.drop(self.proj(att @ v))
            x = x + self.mlp(self.ln2(x))
            return self.out(x)

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rng = np.random.default_rng(0)
        model = Block()
        sd = model.state_dict()
        model.load_state_dict({k: (v if k == "mask" else
                                   torch.tensor(0.3 * rng.standard_normal(tuple(v.shape))))
                               for k, v in sd.items()})
        model.eval()
        seqs = torch.tensor(rng.integers(0, V, size=(10, T)))
        opt = torch.optim.Adam(model.parameters(), lr=0.02, weight_decay=1e-3)
        losses = []
        for _ in range(steps):
            logits = model(seqs)
            loss = F.cross_entropy(logits.reshape(-1, V), seqs.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses
    finally:
        torch.set_default_dtype(prev)
