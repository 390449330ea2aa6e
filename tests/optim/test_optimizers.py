"""RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam: first steps vs hand-computed values,
trajectories vs torch.optim for every documented option combination (float64), torch's
argument errors, state_dict round trip (state keyed by position), add_param_group."""

import itertools
import math
import re

import numpy as np
import pytest

P0 = np.array([[0.5, -1.0, 2.0], [0.25, 1.5, -0.75]])
STEPS = 12


def grad_at(k):
    """A gradient term that changes with the step, so moments see varied inputs."""
    return np.sin(np.arange(6.0).reshape(2, 3) + 0.7 * k) * (0.5 + 0.1 * k)


def make_param(lib, value=P0):
    return lib.nn.Parameter(lib.tg.tensor(np.array(value), dtype=lib.tg.float64))


def loss_step(lib, p, k):
    """Backward of a loss whose gradient depends on p: 0.3*(p - 0.2)^2 + p*grad_at(k)."""
    tg = lib.tg
    c = tg.tensor(grad_at(k), dtype=tg.float64)
    d = p - 0.2
    (d * d * 0.3 + p * c).sum().backward()


def trajectory(lib, cls, kwargs, steps=STEPS):
    p = make_param(lib)
    opt = getattr(lib.optim, cls)([p], **kwargs)
    out = []
    for k in range(steps):
        opt.zero_grad()
        loss_step(lib, p, k)
        opt.step()
        out.append(p.detach().numpy().copy())
    return p, opt, np.array(out)


def first_step(lib, cls, kwargs):
    """The parameter after one step with gradient g = grad_at(0) exactly (linear loss)."""
    tg = lib.tg
    p = make_param(lib)
    opt = getattr(lib.optim, cls)([p], **kwargs)
    (p * tg.tensor(grad_at(0), dtype=tg.float64)).sum().backward()
    opt.step()
    return p.detach().numpy()


# -- hand-computed -----------------------------------------------------------------------------

G = grad_at(0)
FIRST_STEPS = {
    "RMSprop": ({"lr": 0.01, "alpha": 0.9}, P0 - 0.01 * G / (np.sqrt(0.1 * G * G) + 1e-8)),
    "RMSprop_centered": (
        {"lr": 0.01, "alpha": 0.9, "centered": True},
        P0 - 0.01 * G / (np.sqrt(0.1 * G * G - (0.1 * G) ** 2) + 1e-8)),
    "Adagrad": ({"lr": 0.1, "initial_accumulator_value": 0.5},
                P0 - 0.1 * G / (np.sqrt(0.5 + G * G) + 1e-10)),
    "Adadelta": ({"lr": 1.0, "rho": 0.8, "eps": 1e-4},
                 P0 - math.sqrt(1e-4) / np.sqrt(0.2 * G * G + 1e-4) * G),
    "Adamax": ({"lr": 0.01}, P0 - 0.01 * G / (np.abs(G) + 1e-8)),
    "RAdam": ({"lr": 0.01}, P0 - 0.01 * G),  # rho_1 <= 5: bias-corrected momentum only
    "NAdam": ({"lr": 0.01, "betas": (0.9, 0.99)}, None),
}


def _nadam_first_step():
    b1, b2, lr, psi = 0.9, 0.99, 0.01, 4e-3
    mu1 = b1 * (1 - 0.5 * 0.96 ** psi)
    mu2 = b1 * (1 - 0.5 * 0.96 ** (2 * psi))
    m, v = (1 - b1) * G, (1 - b2) * G * G
    denom = np.sqrt(v / (1 - b2)) + 1e-8
    return P0 - lr * (1 - mu1) / (1 - mu1) * G / denom - lr * mu2 / (1 - mu1 * mu2) * m / denom


FIRST_STEPS["NAdam"] = (FIRST_STEPS["NAdam"][0], _nadam_first_step())


@pytest.mark.parametrize("case", sorted(FIRST_STEPS))
def test_first_step_by_hand(lib, case):
    kwargs, want = FIRST_STEPS[case]
    np.testing.assert_allclose(first_step(lib, case.split("_")[0], kwargs), want, rtol=1e-12)


def test_radam_switches_to_the_rectified_step(lib):
    """rho_t = rho_inf - 2 t b2^t / (1 - b2^t) first exceeds 5 at t = 6 for b2 = 0.999."""
    b2 = 0.999
    rho_inf = 2 / (1 - b2) - 1
    rho = [rho_inf - 2 * t * b2 ** t / (1 - b2 ** t) for t in range(1, 8)]
    assert rho[4] <= 5 < rho[5]
    tg = lib.tg
    p = make_param(lib)
    opt = lib.optim.RAdam([p], lr=0.01)
    for _ in range(6):
        opt.zero_grad()
        (p * tg.tensor(G, dtype=tg.float64)).sum().backward()
        before = p.detach().numpy().copy()
        opt.step()
    # constant gradient: m_hat = G, v = (1 - b2^6) G^2, so v_hat = G^2 at step 6
    rect = math.sqrt((rho[5] - 4) * (rho[5] - 2) * rho_inf
                     / ((rho_inf - 4) * (rho_inf - 2) * rho[5]))
    v = (1 - b2 ** 6) * G * G
    want = before - 0.01 * G * math.sqrt(1 - b2 ** 6) / (np.sqrt(v) + 1e-8) * rect
    np.testing.assert_allclose(p.detach().numpy(), want, rtol=1e-11)


def test_maximize_ascends(lib):
    for cls in ("RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"):
        down = first_step(lib, cls, {})
        up = first_step(lib, cls, {"maximize": True})
        np.testing.assert_allclose(up - P0, -(down - P0), rtol=1e-12, err_msg=cls)


# -- vs torch ----------------------------------------------------------------------------------


def _combos(base, **choices):
    """Every combination of the documented options (each given as its off/on values)."""
    names = sorted(choices)
    for values in itertools.product(*(choices[n] for n in names)):
        yield {**base, **dict(zip(names, values))}


CONFIGS = [("RMSprop", kw) for kw in _combos(
    {"lr": 0.01}, alpha=[0.99, 0.9], centered=[False, True], momentum=[0, 0.8],
    weight_decay=[0, 0.1], maximize=[False, True])]
CONFIGS += [("RMSprop", {"eps": 1e-3, "lr": 0.05})]
CONFIGS += [("Adagrad", kw) for kw in _combos(
    {"lr": 0.1}, lr_decay=[0, 0.05], weight_decay=[0, 0.1],
    initial_accumulator_value=[0, 0.3], maximize=[False, True])]
CONFIGS += [("Adagrad", {"eps": 1e-3})]
CONFIGS += [("Adadelta", kw) for kw in _combos(
    {}, rho=[0.9, 0.5], eps=[1e-6, 1e-3], weight_decay=[0, 0.1], maximize=[False, True])]
CONFIGS += [("Adadelta", {"lr": 0.3})]
CONFIGS += [("Adamax", kw) for kw in _combos(
    {}, betas=[(0.9, 0.999), (0.5, 0.8)], eps=[1e-8, 0.1], weight_decay=[0, 0.1],
    maximize=[False, True])]
CONFIGS += [("NAdam", kw) for kw in _combos(
    {}, betas=[(0.9, 0.999), (0.8, 0.9)], momentum_decay=[4e-3, 0.1], weight_decay=[0, 0.1],
    decoupled_weight_decay=[False, True], maximize=[False, True])]
CONFIGS += [("RAdam", kw) for kw in _combos(
    {"lr": 0.01}, betas=[(0.9, 0.999), (0.8, 0.9)], weight_decay=[0, 0.1],
    decoupled_weight_decay=[False, True], maximize=[False, True], eps=[1e-8, 1e-2])]


def _id(config):
    cls, kw = config
    return cls + "-" + ",".join(f"{k}={v}" for k, v in sorted(kw.items()))


@pytest.mark.torch
@pytest.mark.parametrize("config", CONFIGS, ids=[_id(c) for c in CONFIGS])
def test_trajectory_matches_torch(lib, torch_lib, config):
    cls, kwargs = config
    _, _, want = trajectory(torch_lib, cls, kwargs)
    _, _, got = trajectory(lib, cls, kwargs)
    # NAdam: torch keeps mu_product as a float32 scalar tensor (rounding ~1e-8 relative)
    np.testing.assert_allclose(got, want, rtol=1e-7 if cls == "NAdam" else 1e-12, atol=1e-14)


@pytest.mark.torch
@pytest.mark.parametrize("cls", ["Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
                                 "NAdam", "RAdam"])
def test_defaults_and_state_names_are_torchs(lib, torch_lib, cls):
    _, opt, _ = trajectory(lib, cls, {}, steps=2)
    _, topt, _ = trajectory(torch_lib, cls, {}, steps=2)
    ours = {k: v for k, v in opt.defaults.items()}
    theirs = {k: v for k, v in topt.defaults.items()}
    assert ours == {k: theirs[k] for k in ours}
    assert set(opt.state_dict()["state"][0]) == set(topt.state_dict()["state"][0])


# -- errors ------------------------------------------------------------------------------------

BAD = [
    ("RMSprop", {"lr": -1.0}, "Invalid learning rate: -1.0"),
    ("RMSprop", {"eps": -1e-3}, "Invalid epsilon value: -0.001"),
    ("RMSprop", {"momentum": -0.5}, "Invalid momentum value: -0.5"),
    ("RMSprop", {"weight_decay": -0.1}, "Invalid weight_decay value: -0.1"),
    ("RMSprop", {"alpha": -0.9}, "Invalid alpha value: -0.9"),
    ("Adagrad", {"lr_decay": -1}, "Invalid lr_decay value: -1"),
    ("Adagrad", {"initial_accumulator_value": -2},
     "Invalid initial_accumulator_value value: -2"),
    ("Adadelta", {"rho": 1.5}, "Invalid rho value: 1.5"),
    ("Adamax", {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
    ("NAdam", {"betas": (0.9, -0.1)}, "Invalid beta parameter at index 1: -0.1"),
    ("NAdam", {"momentum_decay": -1.0}, "Invalid momentum_decay value: -1.0"),
    ("RAdam", {"weight_decay": -1.0}, "Invalid weight_decay value: -1.0"),
]


@pytest.mark.parametrize("cls,kwargs,message", BAD, ids=[f"{c}-{m}" for c, _, m in BAD])
def test_invalid_arguments(lib, cls, kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        getattr(lib.optim, cls)([make_param(lib)], **kwargs)


@pytest.mark.torch
@pytest.mark.parametrize("cls,kwargs,message", BAD, ids=[f"{c}-{m}" for c, _, m in BAD])
def test_torch_says_the_same(torch_lib, cls, kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        getattr(torch_lib.optim, cls)([make_param(torch_lib)], **kwargs)


def test_unsupported_options_are_refused(lib):
    p = make_param(lib)
    with pytest.raises(ValueError, match="capturable"):
        lib.optim.RMSprop([p], capturable=True)
    with pytest.raises(NotImplementedError, match="differentiable"):
        lib.optim.NAdam([p], differentiable=True)
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together"):
        lib.optim.Adagrad([p], foreach=True, fused=True)
    lib.optim.Adagrad([p], foreach=True)  # an implementation choice: accepted


# -- state_dict, param groups ------------------------------------------------------------------

OPTIONS = {"RMSprop": {"momentum": 0.5, "centered": True}, "Adagrad": {"lr_decay": 0.1},
           "Adadelta": {"weight_decay": 0.1}, "Adamax": {}, "NAdam": {"weight_decay": 0.1},
           "RAdam": {"decoupled_weight_decay": True, "weight_decay": 0.1}}


@pytest.mark.parametrize("cls", sorted(OPTIONS))
def test_state_dict_round_trip(lib, cls):
    """Stopping after 5 steps, saving, loading into a fresh optimizer over a fresh parameter
    with the same values, and continuing gives the uninterrupted trajectory."""
    _, _, whole = trajectory(lib, cls, OPTIONS[cls], steps=9)
    p, opt, _ = trajectory(lib, cls, OPTIONS[cls], steps=5)
    saved = opt.state_dict()
    assert list(saved["state"]) == [0] and saved["param_groups"][0]["params"] == [0]
    assert saved["state"][0]["step"] == 5
    q = make_param(lib, p.detach().numpy())
    fresh = getattr(lib.optim, cls)([q], lr=123.0)
    fresh.load_state_dict(saved)
    assert fresh.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
    rest = []
    for k in range(5, 9):
        fresh.zero_grad()
        loss_step(lib, q, k)
        fresh.step()
        rest.append(q.detach().numpy().copy())
    np.testing.assert_allclose(np.array(rest), whole[5:], rtol=1e-14)


@pytest.mark.parametrize("cls", sorted(OPTIONS))
def test_add_param_group(lib, cls):
    """A group added later takes the defaults it does not set and is stepped with its own lr;
    the same parameter twice is refused."""
    a, b = make_param(lib), make_param(lib)
    opt = getattr(lib.optim, cls)([a], **OPTIONS[cls])
    opt.add_param_group({"params": [b], "lr": 0.0})
    assert set(opt.param_groups[1]) == set(opt.param_groups[0])
    loss_step(lib, a, 0)
    loss_step(lib, b, 0)
    opt.step()
    assert not np.allclose(a.detach().numpy(), P0)
    np.testing.assert_array_equal(b.detach().numpy(), P0)  # its lr 0 freezes it
    with pytest.raises(ValueError):
        opt.add_param_group({"params": [a]})


@pytest.mark.torch
@pytest.mark.parametrize("cls", sorted(OPTIONS))
def test_two_groups_match_torch(lib, torch_lib, cls):
    def run(L):
        a, b = make_param(L), make_param(L, P0[::-1].copy())
        opt = getattr(L.optim, cls)([a], **OPTIONS[cls])
        opt.add_param_group({"params": [b], "lr": 0.003, "weight_decay": 0.2})
        out = []
        for k in range(6):
            opt.zero_grad()
            loss_step(L, a, k)
            loss_step(L, b, k + 1)
            opt.step()
            out.append(np.concatenate([a.detach().numpy(), b.detach().numpy()]))
        return np.array(out)

    np.testing.assert_allclose(run(lib), run(torch_lib), rtol=1e-7, atol=1e-14)


@pytest.mark.torch
@pytest.mark.parametrize("cls", sorted(OPTIONS))
def test_float32_stays_float32_and_matches_torch(lib, torch_lib, cls):
    def run(L):
        tg = L.tg
        p = L.nn.Parameter(tg.tensor(P0, dtype=tg.float32))
        opt = getattr(L.optim, cls)([p], **OPTIONS[cls])
        out = []
        for k in range(STEPS):
            opt.zero_grad()
            d = p - 0.2
            (d * d * 0.3 + p * tg.tensor(grad_at(k), dtype=tg.float32)).sum().backward()
            opt.step()
            out.append(p.detach().numpy().copy())
        return p, opt, np.array(out)

    p, opt, got = run(lib)
    _, _, want = run(torch_lib)
    assert p.dtype == lib.tg.float32
    state = opt.state_dict()["state"][0]
    assert all(v.dtype == lib.tg.float32 for v in state.values() if hasattr(v, "dtype"))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
