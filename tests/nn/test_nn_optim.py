"""optim: update rules vs hand-computed values and vs torch.optim; identity and state."""

import math

import numpy as np
import pytest
from _nnhelpers import to_numpy, torch_lib

P0 = np.array([0.5, -1.0, 2.0])
GRADS = [np.array([0.1, -0.2, 0.3]), np.array([-0.4, 0.5, 0.05]), np.array([0.2, 0.2, -0.6]),
         np.array([0.0, -0.1, 0.1])]


def run(lib, cls, kwargs, steps=None):
    """Apply ``steps`` updates to one parameter whose gradient at step k is GRADS[k]
    (produced by backward of ``sum(p * g)``); returns the parameter after each step."""
    tg = lib.tg
    p = lib.nn.Parameter(tg.tensor(P0, dtype=tg.float64))
    opt = getattr(lib.optim, cls)([p], **kwargs)
    out = []
    for g in GRADS[:len(GRADS) if steps is None else steps]:
        opt.zero_grad()
        (p * tg.tensor(g, dtype=tg.float64)).sum().backward()
        opt.step()
        out.append(to_numpy(p).copy())
    return p, opt, np.array(out)


# -- hand-computed -----------------------------------------------------------------------------


def test_sgd_plain(lib):
    _, _, got = run(lib, "SGD", {"lr": 0.1}, steps=2)
    np.testing.assert_allclose(got[0], P0 - 0.1 * GRADS[0])
    np.testing.assert_allclose(got[1], P0 - 0.1 * GRADS[0] - 0.1 * GRADS[1])


def test_sgd_momentum_weight_decay(lib):
    _, _, got = run(lib, "SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.01}, steps=2)
    d0 = GRADS[0] + 0.01 * P0
    p1 = P0 - 0.1 * d0
    d1 = GRADS[1] + 0.01 * p1
    p2 = p1 - 0.1 * (0.9 * d0 + d1)
    np.testing.assert_allclose(got[0], p1, rtol=1e-14)
    np.testing.assert_allclose(got[1], p2, rtol=1e-14)


def test_adam_first_step_is_lr_times_sign(lib):
    _, _, got = run(lib, "Adam", {"lr": 0.01, "eps": 1e-8}, steps=1)
    g = GRADS[0]
    np.testing.assert_allclose(got[0], P0 - 0.01 * g / (np.abs(g) + 1e-8), rtol=1e-13)


def test_adam_two_steps(lib):
    _, _, got = run(lib, "Adam", {"lr": 0.01, "betas": (0.8, 0.9)}, steps=2)
    g0, g1 = GRADS[0], GRADS[1]
    m = 0.8 * (0.2 * g0) + 0.2 * g1
    v = 0.9 * (0.1 * g0 ** 2) + 0.1 * g1 ** 2
    step = 0.01 / (1 - 0.8 ** 2) * m / (np.sqrt(v) / math.sqrt(1 - 0.9 ** 2) + 1e-8)
    np.testing.assert_allclose(got[1], got[0] - step, rtol=1e-12)


def test_adamw_decays_the_weights_first(lib):
    _, _, got = run(lib, "AdamW", {"lr": 0.01, "weight_decay": 0.5}, steps=1)
    g = GRADS[0]
    np.testing.assert_allclose(got[0], P0 * (1 - 0.01 * 0.5) - 0.01 * g / (np.abs(g) + 1e-8),
                               rtol=1e-13)


# -- behaviour ---------------------------------------------------------------------------------


def test_step_keeps_parameter_identity_and_leafness(lib):
    tg = lib.tg
    lin = lib.nn.Linear(3, 2, dtype=tg.float64)
    w = lin.weight
    opt = lib.optim.SGD(lin.parameters(), lr=0.1)
    lin(tg.ones(4, 3, dtype=tg.float64)).sum().backward()
    before = to_numpy(w).copy()
    opt.step()
    assert lin.weight is w and w.is_leaf and w.requires_grad and w.grad_fn is None
    assert not np.array_equal(before, to_numpy(w))


def test_parameters_without_grad_are_skipped(lib):
    tg = lib.tg
    a = lib.nn.Parameter(tg.tensor([1.0], dtype=tg.float64))
    b = lib.nn.Parameter(tg.tensor([1.0], dtype=tg.float64))
    opt = lib.optim.Adam([a, b], lr=0.1)
    (a * 2.0).sum().backward()
    opt.step()
    assert to_numpy(b)[0] == 1.0 and to_numpy(a)[0] != 1.0


def test_param_groups(lib):
    tg = lib.tg
    a = lib.nn.Parameter(tg.tensor([1.0], dtype=tg.float64))
    b = lib.nn.Parameter(tg.tensor([1.0], dtype=tg.float64))
    opt = lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 1.0}], lr=0.1)
    ((a + b) * 1.0).sum().backward()
    opt.step()
    np.testing.assert_allclose([to_numpy(a)[0], to_numpy(b)[0]], [0.9, 0.0])


def test_invalid_arguments(lib):
    tg = lib.tg
    p = lib.nn.Parameter(tg.tensor([1.0]))
    with pytest.raises(ValueError):
        lib.optim.SGD([p], lr=-1.0)
    with pytest.raises(ValueError):
        lib.optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError):
        lib.optim.Adam([p], betas=(0.9, 1.5))
    with pytest.raises(ValueError):
        lib.optim.SGD([], lr=0.1)


def test_optimizer_state_dict_round_trip(lib):
    p, opt, _ = run(lib, "Adam", {"lr": 0.01}, steps=2)
    sd = opt.state_dict()
    assert sd["state"][0]["step"] == 2 and sd["param_groups"][0]["params"] == [0]
    opt2 = lib.optim.Adam([p], lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.01 and opt2.state[id(p)]["step"] == 2


# -- vs torch ----------------------------------------------------------------------------------

CONFIGS = {
    "sgd": ("SGD", {"lr": 0.1}),
    "sgd_momentum": ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}),
    "sgd_nesterov": ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    "sgd_maximize": ("SGD", {"lr": 0.1, "momentum": 0.5, "maximize": True}),
    "adam": ("Adam", {"lr": 0.01}),
    "adam_wd": ("Adam", {"lr": 0.01, "betas": (0.8, 0.95), "weight_decay": 0.1, "eps": 1e-6}),
    "adam_amsgrad": ("Adam", {"lr": 0.01, "amsgrad": True}),
    "adamw": ("AdamW", {"lr": 0.01}),
    "adamw_amsgrad": ("AdamW", {"lr": 0.01, "weight_decay": 0.3, "amsgrad": True}),
}


@pytest.mark.torch
@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_matches_torch(lib, config):
    cls, kwargs = CONFIGS[config]
    _, _, expected = run(torch_lib(), cls, kwargs)
    _, _, got = run(lib, cls, kwargs)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


def test_step_is_seen_as_an_in_place_change(lib):
    """A graph that saved a parameter before step() refuses to run backward after it."""
    tg = lib.tg
    w = lib.nn.Parameter(tg.tensor([1.0, 2.0], dtype=tg.float64))
    x = tg.tensor([3.0, 4.0], dtype=tg.float64, requires_grad=True)
    opt = lib.optim.SGD([w], lr=0.1)
    (w * x).sum().backward()
    stale = (w * x).sum()
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        stale.backward()
