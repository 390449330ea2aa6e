"""Word2vec skip-gram with negative sampling: two ``nn.Embedding`` tables (input and context,
``sparse=False``), ``torch.bmm`` of the negatives against the centre word, ``F.logsigmoid``,
negatives drawn by ``torch.multinomial`` from the unigram distribution raised to 3/4 (the draws
compared only by shape and range: torch's multinomial stream is not reproduced), a
``torch.utils.data.Dataset`` subclass with ``__len__``/``__getitem__``, SparseAdam-free Adam,
cosine similarity of two words with ``F.cosine_similarity``."""

from collections import Counter


def main(torch, epochs=3):
    nn = torch.nn
    F = torch.nn.functional
    Dataset, DataLoader = torch.utils.data.Dataset, torch.utils.data.DataLoader

    corpus = ("the king rules the land the queen rules the land the dog chases the cat "
              "the cat chases the mouse the king and the queen").split()
    vocab = sorted(set(corpus))
    w2i = {w: i for i, w in enumerate(vocab)}
    counts = Counter(corpus)
    window = 2
    pairs = [(w2i[corpus[i]], w2i[corpus[j]])
             for i in range(len(corpus))
             for j in range(max(0, i - window), min(len(corpus), i + window + 1)) if j != i]

    class SkipGramDataset(Dataset):
        def __init__(self, pairs):
            self.pairs = pairs

        def __len__(self):
            return len(self.pairs)

        def __getitem__(self, idx):
            c, o = self.pairs[idx]
            return torch.tensor(c), torch.tensor(o)

    class SkipGramNeg(nn.Module):
        def __init__(self, vocab_size, emb_dim):
            super().__init__()
            self.in_embed = nn.Embedding(vocab_size, emb_dim)
            self.out_embed = nn.Embedding(vocab_size, emb_dim)
            initrange = 0.5 / emb_dim
            self.in_embed.weight.data.uniform_(-initrange, initrange)
            self.out_embed.weight.data.uniform_(-1, 1)

        def forward(self, center, context, negatives):
            v = self.in_embed(center)                          # (B, D)
            u = self.out_embed(context)                        # (B, D)
            n = self.out_embed(negatives)                      # (B, K, D)
            pos = F.logsigmoid((v * u).sum(dim=1))
            neg = F.logsigmoid(-torch.bmm(n, v.unsqueeze(2)).squeeze(2)).sum(1)
            return -(pos + neg).mean()

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        torch.manual_seed(11)
        freqs = torch.tensor([counts[w] for w in vocab], dtype=torch.float)
        noise_dist = freqs.pow(0.75) / freqs.pow(0.75).sum()
        model = SkipGramNeg(len(vocab), 5)
        optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
        loader = DataLoader(SkipGramDataset(pairs), batch_size=16, shuffle=True,
                            generator=torch.Generator().manual_seed(2))
        # fixed negatives per batch position, drawn once with a seeded generator of our own so
        # that every library sees the same ones (torch.multinomial's stream is not reproduced)
        g = torch.Generator().manual_seed(9)
        fixed_negatives = torch.randint(0, len(vocab), (len(pairs), 3), generator=g)
        out = []
        for _epoch in range(epochs):
            total_loss = 0.0
            for step, (center, context) in enumerate(loader):
                negatives = fixed_negatives[step * 16:step * 16 + center.shape[0]]
                loss = model(center, context, negatives)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total_loss += loss.item() * center.size(0)
            out.append(total_loss / len(loader.dataset))
        drawn = torch.multinomial(noise_dist, 50, replacement=True)
        out.append(float(drawn.shape[0]))
        out.append(float(bool(((drawn >= 0) & (drawn < len(vocab))).all())))
        out.append(float(drawn.dtype == torch.int64))
        emb = model.in_embed.weight.detach()
        sim = F.cosine_similarity(emb[w2i["king"]], emb[w2i["queen"]], dim=0)
        out.append(sim.item())
        nearest = torch.topk(F.cosine_similarity(emb[w2i["cat"]].unsqueeze(0), emb), 3).indices
        out += [float(i) for i in nearest]
        return out
    finally:
        torch.set_default_dtype(prev)
