"""A part-of-speech style tagger: Embedding, a bidirectional 2-layer LSTM over packed sentences
of different lengths (pack_padded_sequence with enforce_sorted=False, pad_packed_sequence), a
linear tag head, cross-entropy that ignores the padding (ignore_index), SGD with momentum."""

import numpy as np


def main(torch, steps=12):
    nn = torch.nn
    F = torch.nn.functional
    rnn_utils = torch.nn.utils.rnn
    V, TAGS, PAD = 10, 4, -100

    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, 6)
            self.lstm = nn.LSTM(6, 5, num_layers=2, bidirectional=True)
            self.head = nn.Linear(10, TAGS)

        def forward(self, words, lengths):
            packed = rnn_utils.pack_padded_sequence(self.emb(words), lengths,
                                                    enforce_sorted=False)
            out, _ = self.lstm(packed)
            padded, _ = rnn_utils.pad_packed_sequence(out)
            return self.head(padded)

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rng = np.random.default_rng(0)
        model = Tagger()
        model.load_state_dict({k: torch.tensor(0.4 * rng.standard_normal(tuple(v.shape)))
                               for k, v in model.state_dict().items()})
        lengths = [5, 7, 3, 6]
        T = max(lengths)
        words = rng.integers(0, V, size=(T, len(lengths)))
        tags = (words % TAGS).copy()              # the tag of a word is a function of the word
        for b, n in enumerate(lengths):
            tags[n:, b] = PAD
        x, y = torch.tensor(words), torch.tensor(tags)
        opt = torch.optim.SGD(model.parameters(), lr=0.3, momentum=0.9)
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            logits = model(x, lengths)
            loss = F.cross_entropy(logits.reshape(-1, TAGS), y.reshape(-1), ignore_index=PAD)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses
    finally:
        torch.set_default_dtype(prev)
