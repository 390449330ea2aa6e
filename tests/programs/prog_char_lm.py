"""Tiny character-level LM: Embedding + LayerNorm + Linear + GELU, AdamW, greedy sampling."""

import numpy as np


def main(torch, steps=60):
    nn = torch.nn
    F = torch.nn.functional
    text = "hello world, hello transgrad. "
    vocab = sorted(set(text))
    stoi = {c: i for i, c in enumerate(vocab)}
    ids = [stoi[c] for c in text]
    V, D = len(vocab), 12

    class CharLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, D)
            self.norm = nn.LayerNorm(D)
            self.hidden = nn.Linear(D, 2 * D)
            self.out = nn.Linear(2 * D, V)

        def forward(self, idx):
            h = self.norm(self.emb(idx))
            return self.out(F.gelu(self.hidden(h)))

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rng = np.random.default_rng(0)
        model = CharLM()
        state = {k: torch.tensor(0.3 * rng.standard_normal(tuple(v.shape)))
                 for k, v in model.state_dict().items()}
        model.load_state_dict(state)
        x = torch.tensor(ids[:-1])
        y = torch.tensor(ids[1:])
        opt = torch.optim.AdamW(model.parameters(), lr=0.02, weight_decay=0.01)
        losses = []
        for _ in range(steps):
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        model.eval()
        tok = stoi["h"]
        sampled = []
        with torch.no_grad():
            for _ in range(8):
                logits = model(torch.tensor([tok]))
                tok = int(logits.argmax(dim=-1)[0].item())
                sampled.append(tok)
        return losses + [float(t) for t in sampled]
    finally:
        torch.set_default_dtype(prev)
