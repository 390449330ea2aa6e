"""LBFGS: trajectories vs torch.optim.LBFGS (fixed step and strong Wolfe, history and
iteration limits), convergence on a least-squares problem (vs numpy's solution) and on a
physics-informed network, the closure contract, errors and state."""

import importlib

import numpy as np
import pytest

RNG = np.random.default_rng(7)
X = RNG.normal(size=(20, 3))
Y = np.sin(X @ np.array([0.5, -1.0, 0.3])) + 0.1 * RNG.normal(size=20)
W0 = RNG.normal(size=(3, 4)) * 0.5
B0 = RNG.normal(size=(4,)) * 0.1
C = np.array([0.7, -0.4, 0.9, 0.3])


def tiny_net(lib, **kwargs):
    """Parameters of ``pred = tanh(X @ W + b) @ C`` and an LBFGS over them, with its closure
    (which also counts its calls)."""
    tg = lib.tg
    w = lib.nn.Parameter(tg.tensor(W0, dtype=tg.float64))
    b = lib.nn.Parameter(tg.tensor(B0, dtype=tg.float64))
    x, y = tg.tensor(X, dtype=tg.float64), tg.tensor(Y, dtype=tg.float64)
    c = tg.tensor(C, dtype=tg.float64)
    opt = lib.optim.LBFGS([w, b], **kwargs)
    calls = []

    def closure():
        opt.zero_grad()
        r = ((x @ w + b).tanh() * c).sum(1) - y
        loss = (r * r).mean()
        loss.backward()
        calls.append(float(loss.detach()))
        return loss

    return (w, b), opt, closure, calls


def run(lib, kwargs, steps=3):
    params, opt, closure, calls = tiny_net(lib, **kwargs)
    points, losses = [], []
    for _ in range(steps):
        losses.append(float(opt.step(closure).detach()))
        points.append(np.concatenate([p.detach().numpy().ravel() for p in params]))
    return np.array(points), np.array(losses), calls


CONFIGS = {
    "default": {},
    "strong_wolfe": {"line_search_fn": "strong_wolfe"},
    "short_history": {"history_size": 2, "max_iter": 8},
    "lr_half": {"lr": 0.5, "max_iter": 6},
    "wolfe_short": {"line_search_fn": "strong_wolfe", "history_size": 3, "max_iter": 10},
    "max_eval": {"line_search_fn": "strong_wolfe", "max_iter": 50, "max_eval": 7},
    "tolerances": {"tolerance_grad": 1e-3, "tolerance_change": 1e-4, "max_iter": 40},
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_trajectory_matches_torch(lib, torch_lib, name):
    want, want_losses, want_calls = run(torch_lib, CONFIGS[name])
    got, got_losses, got_calls = run(lib, CONFIGS[name])
    assert len(got_calls) == len(want_calls)  # same number of evaluations: same path
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(got_losses, want_losses, rtol=1e-9)


def test_step_returns_the_first_loss_and_respects_max_eval(lib):
    _, opt, closure, calls = tiny_net(lib, line_search_fn="strong_wolfe", max_iter=100,
                                           max_eval=9)
    loss = opt.step(closure)
    assert float(loss.detach()) == calls[0]
    assert len(calls) <= 9 + 25  # max_eval bounds the iterations, the line search its own
    assert calls[-1] < calls[0]
    state = opt.state_dict()["state"][0]
    assert state["func_evals"] == len(calls) and state["n_iter"] >= 1


def test_least_squares_converges_to_the_solution(lib):
    """Linear least squares: L-BFGS with strong Wolfe reaches numpy's lstsq solution."""
    tg = lib.tg
    a = RNG.normal(size=(30, 5))
    t = a @ np.arange(1.0, 6.0) + 0.01 * RNG.normal(size=30)
    w = lib.nn.Parameter(tg.zeros(5, dtype=tg.float64))
    at, tt = tg.tensor(a, dtype=tg.float64), tg.tensor(t, dtype=tg.float64)
    opt = lib.optim.LBFGS([w], line_search_fn="strong_wolfe", tolerance_grad=1e-12,
                          tolerance_change=1e-15)

    def closure():
        opt.zero_grad()
        r = at @ w - tt
        loss = (r * r).sum()
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    np.testing.assert_allclose(w.detach().numpy(), np.linalg.lstsq(a, t, rcond=None)[0],
                               rtol=1e-8)


def test_physics_informed_network_trains(lib):
    """u' = cos(x) on [0, 3], u(0) = 0, with u a 1-12-1 tanh network: the residual uses
    d u / d x (double backward); L-BFGS drives u to sin(x)."""
    tg, nn = lib.tg, lib.nn
    autograd = importlib.import_module(tg.__name__ + ".autograd")
    tg.manual_seed(0)
    net = nn.Sequential(nn.Linear(1, 12, dtype=tg.float64), nn.Tanh(),
                        nn.Linear(12, 1, dtype=tg.float64))
    xs = np.linspace(0.0, 3.0, 25).reshape(-1, 1)
    x = tg.tensor(xs, dtype=tg.float64, requires_grad=True)
    zero = tg.zeros(1, 1, dtype=tg.float64)
    target = tg.tensor(np.cos(xs), dtype=tg.float64)
    opt = lib.optim.LBFGS(net.parameters(), line_search_fn="strong_wolfe", max_iter=50)

    def closure():
        opt.zero_grad()
        u = net(x)
        (du,) = autograd.grad(u.sum(), x, create_graph=True)
        r = du - target
        u0 = net(zero)
        loss = (r * r).mean() + (u0 * u0).sum()
        loss.backward()
        return loss

    first = float(opt.step(closure).detach())
    for _ in range(5):
        last = float(opt.step(closure).detach())
    assert last < 1e-5 < first
    with tg.no_grad():
        u = net(x).detach().numpy()
    np.testing.assert_allclose(u, np.sin(xs), atol=2e-2)


def test_at_an_optimum_only_one_evaluation(lib):
    tg = lib.tg
    w = lib.nn.Parameter(tg.tensor([1.0, 2.0], dtype=tg.float64))
    opt = lib.optim.LBFGS([w])
    calls = []

    def closure():
        opt.zero_grad()
        d = w - tg.tensor([1.0, 2.0], dtype=tg.float64)
        loss = (d * d).sum()
        loss.backward()
        calls.append(1)
        return loss

    opt.step(closure)
    assert len(calls) == 1 and list(w.detach().numpy()) == [1.0, 2.0]


def test_errors(lib):
    tg = lib.tg
    w = lib.nn.Parameter(tg.tensor([1.0], dtype=tg.float64))
    v = lib.nn.Parameter(tg.tensor([1.0], dtype=tg.float64))
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        lib.optim.LBFGS([w], lr=-1)
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        lib.optim.LBFGS([{"params": [w]}, {"params": [v]}])
    opt = lib.optim.LBFGS([w], line_search_fn="backtracking")
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'closure'"):
        opt.step()

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


def test_closure_runs_with_grad_even_under_no_grad(lib):
    """As torch: step enables grad for the closure, whatever the caller's mode."""
    tg = lib.tg
    w = lib.nn.Parameter(tg.tensor([3.0], dtype=tg.float64))
    opt = lib.optim.LBFGS([w], max_iter=5)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with tg.no_grad():
        opt.step(closure)
    assert abs(float(w.detach().numpy()[0])) < 1e-6


@pytest.mark.torch
@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_float32_matches_torch(lib, torch_lib, line_search_fn):
    def run(L):
        tg = L.tg
        w = L.nn.Parameter(tg.tensor(W0, dtype=tg.float32))
        b = L.nn.Parameter(tg.tensor(B0, dtype=tg.float32))
        x, y = tg.tensor(X, dtype=tg.float32), tg.tensor(Y, dtype=tg.float32)
        opt = L.optim.LBFGS([w, b], line_search_fn=line_search_fn, max_iter=6)

        def closure():
            opt.zero_grad()
            r = (x @ w + b).tanh().sum(1) - y
            loss = (r * r).mean()
            loss.backward()
            return loss

        for _ in range(2):
            opt.step(closure)
        return w, np.concatenate([w.detach().numpy().ravel(), b.detach().numpy()])

    w, got = run(lib)
    assert w.dtype == lib.tg.float32
    np.testing.assert_allclose(got, run(torch_lib)[1], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_state_dict_round_trip(lib, line_search_fn):
    """Saved after one step and loaded into a fresh LBFGS over parameters with the same
    values, the history carries over: the next step is the uninterrupted one."""
    kwargs = {"line_search_fn": line_search_fn, "max_iter": 4, "history_size": 3}
    params, opt, closure, _ = tiny_net(lib, **kwargs)
    opt.step(closure)
    saved = opt.state_dict()
    assert list(saved["state"]) == [0] and len(saved["state"][0]["old_dirs"]) == 3
    values = [p.detach().numpy().copy() for p in params]
    opt.step(closure)
    want = [p.detach().numpy().copy() for p in params]

    fresh_params, fresh, fresh_closure, _ = tiny_net(lib, **kwargs)
    for p, v in zip(fresh_params, values):
        p.detach().numpy()[...] = v
    fresh.load_state_dict(saved)
    fresh.step(fresh_closure)
    for p, w in zip(fresh_params, want):
        np.testing.assert_allclose(p.detach().numpy(), w, rtol=1e-13)
