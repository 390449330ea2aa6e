"""Train a one-layer transformer language model on a small generated text, character level.

    python examples/tiny_transformer.py                       # compiled engine
    python examples/tiny_transformer.py --engine reference    # pure-Python engine

The text is produced by a tiny seeded grammar ("the cat sees a red ball. ..."), so nothing is
downloaded. The model: token + position embeddings, one pre-norm block (causal multi-head
self-attention, GELU MLP), a final LayerNorm and a linear head; AdamW. Prints a progress bar
on stderr, then the loss, the next-character accuracy on held-out text, a sample and the time.
"""

from __future__ import annotations

import os

# One BLAS / intra-op thread unless told otherwise: Note [Threads for small models] in
# mlp_digits.py.
if __name__ == "__main__":  # run as a script: imported (e.g. by tests), it changes nothing
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("TG_NUM_THREADS", "1")

import argparse
import math
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mlp_digits import Progress, load_engine

SUBJECTS = ["the cat", "a dog", "my friend", "the bird", "a child"]
VERBS = ["sees", "likes", "wants", "finds", "holds"]
ADJECTIVES = ["red", "small", "big", "blue", "old"]
OBJECTS = ["ball", "box", "hat", "book", "cup"]


def make_text(n_sentences: int, seed: int) -> str:
    rng = np.random.default_rng(seed)

    def pick(words: list[str]) -> str:
        return words[rng.integers(len(words))]

    return " ".join(f"{pick(SUBJECTS)} {pick(VERBS)} a {pick(ADJECTIVES)} {pick(OBJECTS)}."
                    for _ in range(n_sentences))


def build_model(tg: Any, nn: Any, vocab: int, context: int, dim: int, heads: int) -> Any:
    F = nn.functional

    class Attention(nn.Module):
        """Causal multi-head self-attention over (batch, time, dim)."""

        def __init__(self) -> None:
            super().__init__()
            self.qkv = nn.Linear(dim, 3 * dim)
            self.out = nn.Linear(dim, dim)
            mask = np.triu(np.full((context, context), -1e9), 1)
            self.register_buffer("mask", tg.tensor(mask, dtype=tg.get_default_dtype()))

        def forward(self, x: Any) -> Any:
            b, t, _ = x.shape
            hd = dim // heads
            q, k, v = self.qkv(x).reshape(b, t, 3, heads, hd).permute(2, 0, 3, 1, 4).unbind(0)
            scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd)) + self.mask[:t, :t]
            y = F.softmax(scores, -1) @ v                       # (b, heads, t, hd)
            return self.out(y.transpose(1, 2).reshape(b, t, dim))

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln1, self.attn = nn.LayerNorm(dim), Attention()
            self.ln2 = nn.LayerNorm(dim)
            self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

        def forward(self, x: Any) -> Any:
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class TinyLM(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tok = nn.Embedding(vocab, dim)
            self.pos = nn.Embedding(context, dim)
            self.block = Block()
            self.ln = nn.LayerNorm(dim)
            self.head = nn.Linear(dim, vocab)
            with tg.no_grad():  # small embeddings, as GPT-style models start
                for emb in (self.tok, self.pos):
                    emb.weight.copy_(emb.weight * 0.1)

        def forward(self, idx: Any) -> Any:
            t = idx.shape[1]
            positions = tg.arange(t, dtype=tg.int64)
            x = self.tok(idx) + self.pos(positions)
            return self.head(self.ln(self.block(x)))

    return TinyLM()


def train(engine: str = "compiled", steps: int = 300, context: int = 24, dim: int = 32,
          heads: int = 2, batch_size: int = 32, lr: float = 3e-3, seed: int = 0,
          quiet: bool = False) -> dict:
    tg, nn, F, optim = load_engine(engine)
    text = make_text(600, seed)
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = np.array([stoi[c] for c in text], dtype=np.int64)
    split = int(0.9 * len(data))
    train_data, test_data = data[:split], data[split:]
    tg.manual_seed(seed)
    model = build_model(tg, nn, len(chars), context, dim, heads)
    opt = optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    rng = np.random.default_rng(seed)

    def batch(source: np.ndarray, n: int) -> tuple:
        starts = rng.integers(0, len(source) - context - 1, size=n)
        x = np.stack([source[s:s + context] for s in starts])
        y = np.stack([source[s + 1:s + context + 1] for s in starts])
        return tg.tensor(x, dtype=tg.int64), tg.tensor(y, dtype=tg.int64)

    bar = None if quiet else Progress(steps)
    start = time.perf_counter()
    loss_value = float("nan")
    for step in range(1, steps + 1):
        x, y = batch(train_data, batch_size)
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss_value = loss.item()
        if bar is not None:
            bar.update(step, f"loss {loss_value:.3f}")
    if bar is not None:
        bar.close()
    model.eval()
    with tg.no_grad():
        x, y = batch(test_data, 64)
        logits = model(x)
        test_loss = F.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1)).item()
        accuracy = float((np.asarray(logits).argmax(-1) == np.asarray(y)).mean())
        sample = generate(tg, model, [stoi[c] for c in "the cat "], 40, context)
    return {"engine": engine, "loss": loss_value, "test_loss": test_loss, "accuracy": accuracy,
            "sample": "".join(chars[i] for i in sample), "seconds": time.perf_counter() - start}


def generate(tg: Any, model: Any, prompt: list, n: int, context: int) -> list:
    """Greedy continuation of ``prompt`` by ``n`` characters."""
    out = list(prompt)
    for _ in range(n):
        idx = tg.tensor(np.array([out[-context:]], dtype=np.int64), dtype=tg.int64)
        out.append(int(np.asarray(model(idx))[0, -1].argmax()))
    return out


def main(argv: Any = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--engine", choices=("compiled", "reference"), default="compiled")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    r = train(a.engine, a.steps, seed=a.seed)
    print(f"{r['engine']} engine: train loss {r['loss']:.3f}, held-out loss {r['test_loss']:.3f}, "
          f"next-character accuracy {100 * r['accuracy']:.1f}%, {r['seconds']:.1f} s")
    print(f"sample: {r['sample']!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
