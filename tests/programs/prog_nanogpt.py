"""A nanoGPT-style model file and training loop: a GPTConfig dataclass, CausalSelfAttention with
a fused qkv Linear, ``split``, a causal mask kept by ``register_buffer`` and applied with
``masked_fill``, ``F.softmax``, MLP with ``nn.GELU``, weight tying of the token embedding with
the lm head, ``_init_weights`` via ``apply`` (and the scaled init of ``c_proj`` by parameter name),
``configure_optimizers`` splitting decay/no-decay by ``p.dim()``, ``get_batch`` with
``torch.randint`` and ``torch.stack``, ``estimate_loss`` under ``@torch.no_grad()``, gradient
clipping, a checkpoint saved and restored through ``torch.save``/``torch.load(weights_only=True)``,
and ``generate`` sampling with top-k and ``torch.multinomial``."""

import io
import math
from dataclasses import dataclass


def main(torch, max_iters=8):
    nn = torch.nn
    from_torch = torch
    F = torch.nn.functional

    @dataclass
    class GPTConfig:
        block_size: int = 8
        vocab_size: int = 11
        n_layer: int = 2
        n_head: int = 2
        n_embd: int = 8
        dropout: float = 0.0
        bias: bool = True

    class LayerNorm(nn.Module):
        """LayerNorm but with an optional bias."""

        def __init__(self, ndim, bias):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(ndim))
            self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

        def forward(self, input):
            return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)

    class CausalSelfAttention(nn.Module):
        def __init__(self, config):
            super().__init__()
            assert config.n_embd % config.n_head == 0
            self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
            self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
            self.attn_dropout = nn.Dropout(config.dropout)
            self.resid_dropout = nn.Dropout(config.dropout)
            self.n_head = config.n_head
            self.n_embd = config.n_embd
            bs = config.block_size
            self.register_buffer("bias", torch.tril(torch.ones(bs, bs)).view(1, 1, bs, bs))

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            att = self.attn_dropout(att)
            y = att @ v
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            return self.resid_dropout(self.c_proj(y))

    class MLP(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
            self.gelu = nn.GELU()
            self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
            self.dropout = nn.Dropout(config.dropout)

        def forward(self, x):
            return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))

    class Block(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
            self.attn = CausalSelfAttention(config)
            self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
            self.mlp = MLP(config)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            x = x + self.mlp(self.ln_2(x))
            return x

    class GPT(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.config = config
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                drop=nn.Dropout(config.dropout),
                h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f=LayerNorm(config.n_embd, bias=config.bias),
            ))
            self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
            self.transformer.wte.weight = self.lm_head.weight  # weight tying
            self.apply(self._init_weights)
            for pn, p in self.named_parameters():
                if pn.endswith("c_proj.weight"):
                    torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

        def get_num_params(self, non_embedding=True):
            n_params = sum(p.numel() for p in self.parameters())
            if non_embedding:
                n_params -= self.transformer.wpe.weight.numel()
            return n_params

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.2)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.2)

        def forward(self, idx, targets=None):
            b, t = idx.size()
            assert t <= self.config.block_size, f"Cannot forward sequence of length {t}"
            pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
            tok_emb = self.transformer.wte(idx)
            pos_emb = self.transformer.wpe(pos)
            x = self.transformer.drop(tok_emb + pos_emb)
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            if targets is not None:
                logits = self.lm_head(x)
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1),
                                       ignore_index=-1)
            else:
                logits = self.lm_head(x[:, [-1], :])
                loss = None
            return logits, loss

        def configure_optimizers(self, weight_decay, learning_rate, betas):
            param_dict = {pn: p for pn, p in self.named_parameters()}
            param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
            decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
            nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
            optim_groups = [
                {"params": decay_params, "weight_decay": weight_decay},
                {"params": nodecay_params, "weight_decay": 0.0},
            ]
            return from_torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas)

        @torch.no_grad()
        def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
            for _ in range(max_new_tokens):
                idx_cond = idx if idx.size(1) <= self.config.block_size \
                    else idx[:, -self.config.block_size:]
                logits, _ = self(idx_cond)
                logits = logits[:, -1, :] / temperature
                if top_k is not None:
                    v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                    logits[logits < v[:, [-1]]] = -float("Inf")
                probs = F.softmax(logits, dim=-1)
                idx_next = torch.multinomial(probs, num_samples=1)
                idx = torch.cat((idx, idx_next), dim=1)
            return idx

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        torch.manual_seed(1337)
        text = "hello world, hello gpt. " * 4
        chars = sorted(list(set(text)))
        stoi = {ch: i for i, ch in enumerate(chars)}
        config = GPTConfig(vocab_size=len(chars))
        data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
        n = int(0.9 * len(data))
        train_data, val_data = data[:n], data[n:]
        batch_size, block_size = 4, config.block_size

        def get_batch(split):
            d = train_data if split == "train" else val_data
            ix = torch.randint(len(d) - block_size, (batch_size,))
            x = torch.stack([d[i:i + block_size] for i in ix])
            y = torch.stack([d[i + 1:i + 1 + block_size] for i in ix])
            return x, y

        model = GPT(config)
        assert model.transformer.wte.weight is model.lm_head.weight
        optimizer = model.configure_optimizers(0.1, 3e-3, (0.9, 0.95))

        @torch.no_grad()
        def estimate_loss(eval_iters=2):
            out = {}
            model.eval()
            for split in ["train", "val"]:
                losses = torch.zeros(eval_iters)
                for k in range(eval_iters):
                    X, Y = get_batch(split)
                    _, loss = model(X, Y)
                    losses[k] = loss.item()
                out[split] = losses.mean()
            model.train()
            return out

        def get_lr(it, warmup_iters=2, lr_decay_iters=8, learning_rate=3e-3, min_lr=3e-4):
            if it < warmup_iters:
                return learning_rate * (it + 1) / (warmup_iters + 1)
            decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
            coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
            return min_lr + coeff * (learning_rate - min_lr)

        out = [float(model.get_num_params())]
        X, Y = get_batch("train")
        for iter_num in range(max_iters):
            lr = get_lr(iter_num)
            for param_group in optimizer.param_groups:
                param_group["lr"] = lr
            if iter_num % 4 == 0:
                losses = estimate_loss()
                out += [losses["train"].item(), float(losses["val"])]
            logits, loss = model(X, Y)
            X, Y = get_batch("train")
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            out.append(loss.item())
        buf = io.BytesIO()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "iter_num": max_iters}, buf)
        buf.seek(0)
        checkpoint = torch.load(buf, map_location="cpu", weights_only=True)
        restored = GPT(config)
        restored.load_state_dict(checkpoint["model"])
        restored.eval()
        out.append(float(checkpoint["iter_num"]))
        _, loss = restored(X, Y)
        out.append(loss.item())
        start = torch.tensor([[stoi["h"]]], dtype=torch.long)
        y = restored.generate(start, 6, temperature=0.8, top_k=5)
        out.append(float(y.shape[1]))
        out.append(float(((y >= 0) & (y < config.vocab_size)).all()))
        return out
    finally:
        torch.set_default_dtype(prev)
