"""Training end to end: the loss falls, both engines agree step by step, torch agrees too.

Every model starts from the same float64 weights (loaded with load_state_dict from numpy), so
the reference engine, the compiled engine and torch must produce the same losses at every step
up to rounding.
"""

import numpy as np
import pytest
from _nnhelpers import load_engine, nn_of, torch_lib

STEPS = 25

OPTIMIZERS = {
    "sgd": ("SGD", {"lr": 1.0}),
    "sgd_momentum": ("SGD", {"lr": 0.2, "momentum": 0.9, "weight_decay": 1e-3}),
    "sgd_nesterov": ("SGD", {"lr": 0.2, "momentum": 0.9, "nesterov": True}),
    "adam": ("Adam", {"lr": 0.05}),
    "adamw": ("AdamW", {"lr": 0.05, "weight_decay": 0.1}),
}


def load(lib, model, state):
    """Load float64 numpy weights into a model of ``lib`` (transgrad or torch)."""
    model.load_state_dict({k: lib.tg.tensor(v, dtype=lib.tg.float64) for k, v in state.items()})


def classification_data(n=48, d=5, c=3, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    y = (x[:, :c] + 0.3 * rng.normal(size=(n, c))).argmax(1).astype(np.int64)
    return x, y


def mlp_state(d=5, h=16, c=3, seed=1):
    rng = np.random.default_rng(seed)
    return {"0.weight": rng.uniform(-0.4, 0.4, (h, d)), "0.bias": rng.uniform(-0.4, 0.4, h),
            "2.weight": rng.uniform(-0.25, 0.25, (c, h)), "2.bias": rng.uniform(-0.25, 0.25, c)}


def train_mlp(lib, opt_name, steps=STEPS):
    tg, nn, F = lib.tg, lib.nn, lib.F
    x, y = classification_data()
    model = nn.Sequential(nn.Linear(5, 16, dtype=tg.float64), nn.Tanh(),
                          nn.Linear(16, 3, dtype=tg.float64))
    load(lib, model, mlp_state())
    cls, kwargs = OPTIMIZERS[opt_name]
    opt = getattr(lib.optim, cls)(model.parameters(), **kwargs)
    xt, yt = tg.tensor(x, dtype=tg.float64), tg.tensor(y, dtype=tg.int64)
    losses = []
    for _ in range(steps):
        loss = F.cross_entropy(model(xt), yt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return np.array(losses)


def tiny_lm_data(vocab=7, length=60, seed=2):
    """A token sequence with a learnable rule: the next token is (3 t + 1) mod vocab, mostly."""
    rng = np.random.default_rng(seed)
    toks = [0]
    for _ in range(length):
        nxt = (3 * toks[-1] + 1) % vocab if rng.random() < 0.9 else int(rng.integers(vocab))
        toks.append(nxt)
    toks = np.array(toks, dtype=np.int64)
    return toks[:-1], toks[1:]


def tiny_lm_state(vocab=7, dim=8, seed=3):
    rng = np.random.default_rng(seed)
    return {"0.weight": rng.normal(size=(vocab, dim)), "1.weight": 1.0 + 0.1 * rng.normal(size=dim),
            "1.bias": 0.1 * rng.normal(size=dim),
            "3.weight": rng.uniform(-0.3, 0.3, (vocab, dim)), "3.bias": np.zeros(vocab)}


def train_tiny_lm(lib, steps=STEPS):
    """Embedding -> LayerNorm -> GELU -> Linear, next-token cross entropy, AdamW."""
    tg, nn, F = lib.tg, lib.nn, lib.F
    x, y = tiny_lm_data()
    model = nn.Sequential(nn.Embedding(7, 8, dtype=tg.float64), nn.LayerNorm(8, dtype=tg.float64),
                          nn.GELU(), nn.Linear(8, 7, dtype=tg.float64))
    load(lib, model, tiny_lm_state())
    opt = lib.optim.AdamW(model.parameters(), lr=0.05, weight_decay=0.01)
    xt, yt = tg.tensor(x, dtype=tg.int64), tg.tensor(y, dtype=tg.int64)
    losses = []
    for _ in range(steps):
        loss = F.cross_entropy(model(xt), yt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return np.array(losses)


def train_regression(lib, steps=STEPS):
    """An MLP with SiLU, regression with mse_loss, SGD with momentum."""
    tg, nn, F = lib.tg, lib.nn, lib.F
    rng = np.random.default_rng(4)
    x = rng.uniform(-2, 2, size=(40, 2))
    y = np.sin(x[:, :1]) * x[:, 1:]
    model = nn.Sequential(nn.Linear(2, 12, dtype=tg.float64), nn.SiLU(),
                          nn.Linear(12, 1, dtype=tg.float64))
    load(lib, model, {"0.weight": rng.uniform(-0.7, 0.7, (12, 2)),
                           "0.bias": rng.uniform(-0.7, 0.7, 12),
                           "2.weight": rng.uniform(-0.3, 0.3, (1, 12)), "2.bias": np.zeros(1)})
    opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    xt, yt = tg.tensor(x, dtype=tg.float64), tg.tensor(y, dtype=tg.float64)
    losses = []
    for _ in range(steps * 4):
        loss = F.mse_loss(model(xt), yt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return np.array(losses)


def train_with_dropout(lib, steps=STEPS):
    """An MLP with Dropout while training (masks drawn from manual_seed), SGD."""
    tg, nn, F = lib.tg, lib.nn, lib.F
    x, y = classification_data()
    model = nn.Sequential(nn.Linear(5, 16, dtype=tg.float64), nn.Tanh(), nn.Dropout(0.2),
                          nn.Linear(16, 3, dtype=tg.float64))
    load(lib, model, {k.replace("2.", "3."): v for k, v in mlp_state().items()})
    opt = lib.optim.SGD(model.parameters(), lr=0.5, momentum=0.5)
    xt, yt = tg.tensor(x, dtype=tg.float64), tg.tensor(y, dtype=tg.int64)
    tg.manual_seed(7)
    losses = []
    for _ in range(steps):
        loss = F.cross_entropy(model(xt), yt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    losses.append(F.cross_entropy(model(xt), yt).item())  # without dropout
    return np.array(losses)


PROGRAMS = {"mlp_" + k: (lambda lib, k=k: train_mlp(lib, k)) for k in OPTIMIZERS}
PROGRAMS["tiny_lm"] = train_tiny_lm
PROGRAMS["regression"] = train_regression
PROGRAMS["dropout"] = train_with_dropout
NOT_IN_TORCH = {"dropout"}  # torch draws other random masks


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_loss_falls(lib, program):
    losses = PROGRAMS[program](lib)
    assert np.all(np.isfinite(losses))
    assert losses[-1] < 0.35 * losses[0], losses


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_engines_agree_step_by_step(program):
    ref = PROGRAMS[program](nn_of(load_engine("reference")))
    comp = PROGRAMS[program](nn_of(load_engine("compiled")))
    np.testing.assert_allclose(comp, ref, rtol=1e-9, atol=1e-12)


# -- torch as the oracle (same programs written with torch.nn / torch.optim) -----------------


@pytest.mark.torch
@pytest.mark.parametrize("program", sorted(set(PROGRAMS) - NOT_IN_TORCH))
def test_matches_torch(lib, program):
    tl = torch_lib()
    expected = PROGRAMS[program](tl)
    got = PROGRAMS[program](lib)
    np.testing.assert_allclose(got, expected, rtol=1e-8, atol=1e-10)
