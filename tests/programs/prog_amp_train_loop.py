"""The training-loop file of a GPU-first project run on the CPU unchanged: the usual device and
dtype switches (``'cuda' if torch.cuda.is_available()``, ``torch.backends.cuda.matmul.allow_tf32``,
``torch.backends.cudnn.allow_tf32``), ``nullcontext()`` or ``torch.amp.autocast`` chosen by the
device type, ``torch.amp.GradScaler`` (CPU, enabled: real loss scaling with an inf step that is
skipped) with ``scaler.unscale_`` before gradient clipping, gradient accumulation over
micro-steps, a discrete-latent (Gumbel-softmax) autoencoder as the model, f-string logging of
0-d tensors, ``iter_num`` checkpoints in a dict, and a final evaluation under
``torch.no_grad()``."""

import math
from contextlib import nullcontext


def main(torch, max_iters=6):
    nn = torch.nn
    F = torch.nn.functional

    class GumbelAutoencoder(nn.Module):
        def __init__(self, d=6, k=5):
            super().__init__()
            self.enc = nn.Sequential(nn.Linear(d, 16), nn.GELU(), nn.Linear(16, k))
            self.codebook = nn.Linear(k, d, bias=False)
            self.temperature = 1.0

        def forward(self, x, hard=False):
            logits = self.enc(x)
            z = F.gumbel_softmax(logits, tau=self.temperature, hard=hard, dim=-1)
            recon = self.codebook(z)
            q = F.softmax(logits, dim=-1)
            kl = (q * (q.clamp_min(1e-10).log() + math.log(q.size(-1)))).sum(-1).mean()
            return recon, kl

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        device = "cuda" if torch.cuda.is_available() else "cpu"
        device_type = "cuda" if "cuda" in device else "cpu"
        dtype = "bfloat16" if torch.cuda.is_available() else "float32"
        torch.manual_seed(1337)
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
        ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16,
                   "float16": torch.float16}[dtype]
        ctx = nullcontext() if device_type == "cpu" else torch.amp.autocast(
            device_type=device_type, dtype=ptdtype)
        model = GumbelAutoencoder().to(device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, betas=(0.9, 0.95),
                                      weight_decay=0.1)
        scaler = torch.amp.GradScaler(device_type, init_scale=2.0 ** 8, growth_interval=3,
                                      enabled=True)
        data = torch.randn(32, 6, device=device)
        gradient_accumulation_steps, grad_clip = 2, 1.0
        out, log = [], []
        for iter_num in range(max_iters):
            model.temperature = max(0.5, math.exp(-0.2 * iter_num))
            for micro_step in range(gradient_accumulation_steps):
                xb = data[micro_step * 16:(micro_step + 1) * 16]
                with ctx:
                    recon, kl = model(xb, hard=iter_num % 2 == 1)
                    loss = F.mse_loss(recon, xb) + 0.1 * kl
                    loss = loss / gradient_accumulation_steps
                if iter_num == 3 and micro_step == 1:
                    loss = loss * float("inf")  # an overflowing step: the scaler skips it
                scaler.scale(loss).backward()
            if grad_clip != 0.0:
                scaler.unscale_(optimizer)
                norm = torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
            lossf = loss.item() * gradient_accumulation_steps
            log.append(f"iter {iter_num}: loss {lossf:.4f}, scale {scaler.get_scale():.0f}, "
                       f"norm {norm:.4f}")
            out += [lossf if math.isfinite(lossf) else -1.0, scaler.get_scale(),
                    norm.item() if math.isfinite(norm.item()) else -1.0]
        checkpoint = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                      "scaler": scaler.state_dict(), "iter_num": max_iters}
        out.append(float(checkpoint["scaler"]["scale"]))
        out.append(float(len(log[-1]) > 0 and log[0].startswith("iter 0: loss ")))
        model.eval()
        with torch.no_grad():
            recon, kl = model(data, hard=True)
            out += [F.mse_loss(recon, data).item(), kl.item()]
        return out
    finally:
        torch.set_default_dtype(prev)
