"""lr_scheduler: 50-step lr sequences vs closed forms (no torch) and vs torch's schedulers;
engine-free (a bare object with param_groups), state_dict, torch's step-order warning."""

import math
import types
import warnings

import numpy as np
import pytest
from transgrad.optim import lr_scheduler as S

STEPS = 50


def fake_optimizer(lrs=(0.1, 0.05), key="momentum"):
    """Anything with param_groups (and defaults, read by the momentum-cycling schedules)."""
    groups = [{"params": [], "lr": lr, "momentum": 0.9, "betas": (0.9, 0.999)} for lr in lrs]
    if key == "momentum":
        for g in groups:
            del g["betas"]
    return types.SimpleNamespace(param_groups=groups, defaults=dict(groups[0]))


def lr_sequence(make, optimizer, steps=STEPS, metric=None):
    """The lrs of every group after construction and after each of ``steps`` steps."""
    sched = make(S, optimizer)
    out = [[g["lr"] for g in optimizer.param_groups]]
    for k in range(steps):
        sched.step(*(() if metric is None else (metric(k),)))
        out.append([g["lr"] for g in optimizer.param_groups])
    return np.array(out, dtype=np.float64)


# -- vs closed forms (no torch) ---------------------------------------------------------------

CLOSED = {
    "StepLR": (lambda L, o: L.StepLR(o, step_size=7, gamma=0.5),
               lambda b, e: b * 0.5 ** (e // 7)),
    "MultiStepLR": (lambda L, o: L.MultiStepLR(o, milestones=[5, 20, 20, 33], gamma=0.3),
                    lambda b, e: b * 0.3 ** sum(m <= e for m in [5, 20, 20, 33])),
    "ExponentialLR": (lambda L, o: L.ExponentialLR(o, gamma=0.93),
                      lambda b, e: b * 0.93 ** e),
    "CosineAnnealingLR": (lambda L, o: L.CosineAnnealingLR(o, T_max=12, eta_min=0.001),
                          lambda b, e: 0.001 + (b - 0.001) * (1 + math.cos(math.pi * e / 12)) / 2),
    "CosineAnnealingWarmRestarts": (
        lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2, eta_min=0.01),
        lambda b, e: 0.01 + (b - 0.01) * (1 + math.cos(math.pi * _sgdr(e, 4, 2)[0]
                                                       / _sgdr(e, 4, 2)[1])) / 2),
    "LambdaLR": (lambda L, o: L.LambdaLR(o, lr_lambda=lambda e: 1 / (1 + e)),
                 lambda b, e: b / (1 + e)),
    "MultiplicativeLR": (lambda L, o: L.MultiplicativeLR(o, lr_lambda=lambda e: 0.9),
                         lambda b, e: b * 0.9 ** e),
    "LinearLR": (lambda L, o: L.LinearLR(o, start_factor=0.25, end_factor=0.8, total_iters=10),
                 lambda b, e: b * (0.25 + 0.55 * min(e, 10) / 10)),
    "ConstantLR": (lambda L, o: L.ConstantLR(o, factor=0.4, total_iters=6),
                   lambda b, e: b * (0.4 if e < 6 else 1.0)),
    "PolynomialLR": (lambda L, o: L.PolynomialLR(o, total_iters=30, power=2.0),
                     lambda b, e: b * (1 - min(e, 30) / 30) ** 2),
    "CyclicLR": (lambda L, o: L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=5,
                                         step_size_down=3, cycle_momentum=False),
                 lambda b, e: 0.01 + 0.09 * _triangle(e, 5, 3)),
    "OneCycleLR": (lambda L, o: L.OneCycleLR(o, max_lr=0.1, total_steps=60,
                                             anneal_strategy="linear", cycle_momentum=False),
                   lambda b, e: _one_cycle_linear(e, 0.1, 60)),
}


def _sgdr(e, t0, mult):
    """(position in the current cycle, cycle length) at epoch e."""
    length = t0
    while e >= length:
        e -= length
        length *= mult
    return e, length


def _triangle(e, up, down):
    x = e % (up + down)
    return x / up if x <= up else (up + down - x) / down


def _one_cycle_linear(e, top, total):
    lo, end = top / 25.0, top / 25.0 / 1e4
    peak = 0.3 * total - 1
    if e <= peak:
        return lo + (top - lo) * e / peak
    return top + (end - top) * (e - peak) / (total - 1 - peak)


@pytest.mark.parametrize("name", sorted(CLOSED))
def test_matches_closed_form(name):
    make, closed = CLOSED[name]
    got = lr_sequence(make, fake_optimizer())
    want = np.array([[closed(b, e) for b in (0.1, 0.05)] for e in range(STEPS + 1)])
    if name in ("CyclicLR", "OneCycleLR"):  # base_lr / max_lr replace the groups' lr
        want[:, 1] = want[:, 0]
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-15)


def test_reduce_on_plateau_by_hand():
    opt = fake_optimizer()
    sched = S.ReduceLROnPlateau(opt, factor=0.5, patience=2, cooldown=1, min_lr=0.02)
    # improves, then flat: the 3rd bad epoch (> patience) halves, cooldown 1, ...
    for m in [1.0, 0.5, 0.5, 0.5, 0.5]:
        sched.step(m)
    assert [g["lr"] for g in opt.param_groups] == [0.05, 0.05 * 0.5]
    for m in [0.5] * 4:
        sched.step(m)
    assert [g["lr"] for g in opt.param_groups] == [0.025, 0.02]  # clamped at min_lr
    assert sched.get_last_lr() == [0.025, 0.02]


def test_sequential_and_chained_by_hand():
    opt = fake_optimizer((1.0,))
    warm = S.LinearLR(opt, start_factor=0.5, total_iters=2)
    decay = S.ExponentialLR(opt, gamma=0.5)
    seq = S.SequentialLR(opt, [warm, decay], milestones=[3])
    lrs = [opt.param_groups[0]["lr"]]
    for _ in range(5):
        seq.step()
        lrs.append(opt.param_groups[0]["lr"])
    np.testing.assert_allclose(lrs, [0.5, 0.75, 1.0, 1.0, 0.5, 0.25])
    opt = fake_optimizer((1.0,))
    chain = S.ChainedScheduler([S.ExponentialLR(opt, gamma=0.5), S.StepLR(opt, 2, gamma=0.1)])
    for _ in range(2):
        chain.step()
    np.testing.assert_allclose(opt.param_groups[0]["lr"], 0.25 * 0.1)
    assert chain.get_last_lr() == [opt.param_groups[0]["lr"]]


def test_momentum_is_cycled():
    opt = fake_optimizer((0.1,))
    S.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    assert opt.param_groups[0]["momentum"] == 0.95
    opt = fake_optimizer((0.1,), key="betas")
    sched = S.CyclicLR(opt, 0.01, 0.1, step_size_up=2)
    sched.step()
    assert opt.param_groups[0]["betas"] == (pytest.approx(0.85, rel=1e-15), 0.999)


# -- errors, state, warnings -------------------------------------------------------------------


def test_errors_are_torchs():
    opt = fake_optimizer()
    with pytest.raises(TypeError, match="object is not an Optimizer"):
        S.StepLR(object(), 3)
    with pytest.raises(ValueError, match="Constant multiplicative factor"):
        S.ConstantLR(opt, factor=2.0)
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        S.LambdaLR(opt, [lambda e: 1.0])
    with pytest.raises(KeyError, match="initial_lr"):
        S.StepLR(fake_optimizer(), 3, last_epoch=4)
    with pytest.raises(ValueError, match="Expected positive integer T_0"):
        S.CosineAnnealingWarmRestarts(opt, T_0=0)
    with pytest.raises(ValueError, match="You must define either total_steps"):
        S.OneCycleLR(opt, max_lr=0.1)
    with pytest.raises(ValueError, match="optimizer must support momentum"):
        S.CyclicLR(types.SimpleNamespace(param_groups=[{"lr": 0.1}], defaults={"lr": 0.1}),
                   0.01, 0.1)
    with pytest.raises(ValueError, match="Tried to step 3 times"):
        sched = S.OneCycleLR(fake_optimizer(), max_lr=0.1, total_steps=2)
        for _ in range(3):
            sched.step()
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        S.ChainedScheduler([S.ReduceLROnPlateau(opt)])


def test_state_dict_round_trip():
    opt = fake_optimizer()
    sched = S.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
    for _ in range(7):
        sched.step()
    saved = sched.state_dict()
    assert "optimizer" not in saved and saved["last_epoch"] == 7
    opt2 = fake_optimizer()
    sched2 = S.CosineAnnealingWarmRestarts(opt2, T_0=3, T_mult=2)
    sched2.load_state_dict(saved)
    for g2, g in zip(opt2.param_groups, opt.param_groups):
        g2["lr"] = g["lr"]
    for _ in range(5):
        sched.step()
        sched2.step()
    assert sched.get_last_lr() == sched2.get_last_lr()


def test_lambda_state_dict_keeps_callable_objects_only():
    class Warmup:
        def __init__(self):
            self.n = 4

        def __call__(self, e):
            return min(1.0, (e + 1) / self.n)

    opt = fake_optimizer()
    sched = S.LambdaLR(opt, [Warmup(), lambda e: 1.0])
    sd = sched.state_dict()
    assert sd["lr_lambdas"] == [{"n": 4}, None]
    sd["lr_lambdas"][0]["n"] = 10
    sched.load_state_dict(sd)
    assert sched.lr_lambdas[0].n == 10


def test_get_lr_outside_step_warns():
    sched = S.StepLR(fake_optimizer(), 3)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


def test_step_order_warning(lib):
    tg = lib.tg
    p = lib.nn.Parameter(tg.tensor([1.0, 2.0], dtype=tg.float64))
    opt = lib.optim.SGD([p], lr=0.1)
    sched = S.StepLR(opt, 2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    opt = lib.optim.SGD([p], lr=0.1)
    sched = S.ExponentialLR(opt, 0.9)
    (p * p).sum().backward()
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()
        sched.step()  # only the first step is checked, as torch
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * 0.81)


def test_drives_a_real_optimizer(lib):
    """The lr a scheduler sets is the one the next optimizer step uses."""
    tg = lib.tg
    p = lib.nn.Parameter(tg.tensor([1.0], dtype=tg.float64))
    opt = lib.optim.SGD([p], lr=1.0)
    sched = S.StepLR(opt, step_size=1, gamma=0.5)
    expected = 1.0
    for k in range(4):
        opt.zero_grad()
        p.sum().backward()  # gradient 1
        opt.step()
        expected -= 0.5 ** k
        sched.step()
    assert float(p.detach().numpy()[0]) == pytest.approx(expected, abs=1e-15)


# -- vs torch ----------------------------------------------------------------------------------

TWINS = {
    "step": lambda L, o: L.StepLR(o, step_size=7, gamma=0.5),
    "step_default": lambda L, o: L.StepLR(o, step_size=3),
    "multistep": lambda L, o: L.MultiStepLR(o, milestones=[5, 20, 20, 33], gamma=0.3),
    "exponential": lambda L, o: L.ExponentialLR(o, gamma=0.93),
    "cosine": lambda L, o: L.CosineAnnealingLR(o, T_max=12, eta_min=0.001),
    "cosine_default": lambda L, o: L.CosineAnnealingLR(o, T_max=50),
    "warm_restarts": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2,
                                                                 eta_min=0.01),
    "warm_restarts_1": lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=9),
    "lambda": lambda L, o: L.LambdaLR(o, lr_lambda=lambda e: 1 / (1 + e)),
    "lambda_list": lambda L, o: L.LambdaLR(o, [lambda e: 0.95 ** e, lambda e: e // 10 + 1]),
    "multiplicative": lambda L, o: L.MultiplicativeLR(o, lr_lambda=lambda e: 0.97),
    "linear": lambda L, o: L.LinearLR(o, start_factor=0.25, end_factor=0.8, total_iters=10),
    "linear_default": lambda L, o: L.LinearLR(o),
    "constant": lambda L, o: L.ConstantLR(o, factor=0.4, total_iters=6),
    "polynomial": lambda L, o: L.PolynomialLR(o, total_iters=30, power=2.0),
    "polynomial_default": lambda L, o: L.PolynomialLR(o),
    "one_cycle": lambda L, o: L.OneCycleLR(o, max_lr=[0.1, 0.2], total_steps=60),
    "one_cycle_3phase": lambda L, o: L.OneCycleLR(o, max_lr=0.3, epochs=5, steps_per_epoch=11,
                                                  pct_start=0.25, anneal_strategy="linear",
                                                  three_phase=True, div_factor=10.0),
    "cyclic": lambda L, o: L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=5,
                                      step_size_down=3),
    "cyclic_triangular2": lambda L, o: L.CyclicLR(o, 0.01, [0.1, 0.2], step_size_up=4,
                                                  mode="triangular2"),
    "cyclic_exp_range": lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=3,
                                                mode="exp_range", gamma=0.97),
    "cyclic_scale_fn": lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=3,
                                               scale_fn=lambda x: 1 / x, scale_mode="cycle"),
    "sequential": lambda L, o: L.SequentialLR(
        o, [L.LinearLR(o, start_factor=0.1, total_iters=5), L.ExponentialLR(o, gamma=0.9),
            L.CosineAnnealingLR(o, T_max=10)], milestones=[5, 20]),
    "chained": lambda L, o: L.ChainedScheduler(
        [L.ConstantLR(o, factor=0.5, total_iters=4), L.ExponentialLR(o, gamma=0.9),
         L.StepLR(o, 6, gamma=0.5)]),
}

PLATEAU = {
    "plateau_min_rel": {"factor": 0.5, "patience": 3},
    "plateau_max_abs": {"mode": "max", "threshold_mode": "abs", "threshold": 0.1,
                        "factor": 0.3, "patience": 1, "cooldown": 2, "min_lr": [0.01, 0.002]},
}


def _metric(k):
    return 1.0 / (1 + k % 7) + 0.001 * k


def _torch_sequence(torch, make, metric=None):
    p = torch.nn.Parameter(torch.zeros(1, dtype=torch.float64))
    q = torch.nn.Parameter(torch.zeros(1, dtype=torch.float64))
    opt = torch.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.05}], lr=0.1, momentum=0.9)
    sched = make(torch.optim.lr_scheduler, opt)
    out = [[g["lr"] for g in opt.param_groups]]
    for k in range(STEPS):
        opt.step()
        sched.step(*(() if metric is None else (metric(k),)))
        out.append([g["lr"] for g in opt.param_groups])
    return np.array(out, dtype=np.float64)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(TWINS) + sorted(PLATEAU))
def test_matches_torch(name):
    torch = pytest.importorskip("torch")
    if name in PLATEAU:
        kwargs = PLATEAU[name]
        def make(L, o):
            return L.ReduceLROnPlateau(o, **kwargs)

        metric = _metric
    else:
        make, metric = TWINS[name], None
    np.testing.assert_allclose(lr_sequence(make, fake_optimizer(), metric=metric),
                               _torch_sequence(torch, make, metric), rtol=1e-13, atol=0)


@pytest.mark.torch
def test_drives_torchs_optimizer_too():
    """Engine-free: our scheduler over torch.optim.SGD gives torch's sequence."""
    torch = pytest.importorskip("torch")
    p = torch.nn.Parameter(torch.zeros(1, dtype=torch.float64))
    p.grad = torch.ones(1, dtype=torch.float64)
    opt = torch.optim.SGD([p], lr=0.1)
    sched = S.CosineAnnealingLR(opt, T_max=7)
    got = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch's parameters count versions: no false warning
        for _ in range(20):
            opt.step()
            sched.step()
            got.append(sched.get_last_lr()[0])
    want = _torch_sequence(torch, lambda L, o: L.CosineAnnealingLR(o, T_max=7))[1:21, 0]
    np.testing.assert_allclose(got, want, rtol=1e-13)


@pytest.mark.parametrize("name", ["cyclic_scale_fn", "one_cycle", "sequential", "chained",
                                  "lambda_list", "polynomial"])
def test_state_dict_resumes_the_sequence(name):
    """Saved after 17 steps and loaded into a scheduler built the same way over a fresh
    optimizer (whose lrs are restored as an optimizer state_dict would), the remaining lrs
    are the uninterrupted ones."""
    make = TWINS[name]
    whole = lr_sequence(make, fake_optimizer(), steps=30)
    opt = fake_optimizer()
    sched = make(S, opt)
    for _ in range(17):
        sched.step()
    saved = sched.state_dict()
    assert "optimizer" not in saved and "_versions_at_start" not in saved
    opt2 = fake_optimizer()
    sched2 = make(S, opt2)
    sched2.load_state_dict(saved)
    for g2, g in zip(opt2.param_groups, opt.param_groups):
        g2.update({k: v for k, v in g.items() if k != "params"})
    rest = []
    for _ in range(13):
        sched2.step()
        rest.append([g["lr"] for g in opt2.param_groups])
    np.testing.assert_allclose(np.array(rest), whole[18:], rtol=1e-14)
