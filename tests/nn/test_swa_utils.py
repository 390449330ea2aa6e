"""optim.swa_utils against torch on both engines: AveragedModel (SWA running mean, EMA by
get_ema_multi_avg_fn and get_ema_avg_fn, use_buffers), SWALR's learning rates, update_bn's
running statistics, state-dict keys, errors."""

import importlib

import numpy as np
import pytest
from _nnhelpers import load_engine
from _torchcmp import raises_like

pytestmark = pytest.mark.torch


def _np(t):
    return np.asarray(t.detach().numpy() if hasattr(t, "numpy") else t.detach())


def _swa(lib):
    return importlib.import_module(lib.tg.__name__ + ".optim.swa_utils")


def _net(nn):
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))


def _pair(lib, torch):
    torch.manual_seed(0)
    theirs = _net(torch.nn).double()
    ours = _net(lib.nn).double()
    ours.load_state_dict({k: lib.tg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


def _train_step(lib, torch, ours, theirs, opt_o, opt_t, x):
    for model, opt, tg in ((ours, opt_o, lib.tg), (theirs, opt_t, torch)):
        opt.zero_grad()
        (model(tg.tensor(x)) ** 2).mean().backward()
        opt.step()


@pytest.mark.parametrize("kind", ["swa", "ema_multi", "ema", "swa_buffers"])
def test_averaged_model_follows_torch(lib, kind):
    torch = pytest.importorskip("torch")
    swa, tswa = _swa(lib), torch.optim.swa_utils
    ours, theirs = _pair(lib, torch)
    kwargs_o, kwargs_t = {}, {}
    if kind == "ema_multi":
        kwargs_o = {"multi_avg_fn": swa.get_ema_multi_avg_fn(0.9)}
        kwargs_t = {"multi_avg_fn": tswa.get_ema_multi_avg_fn(0.9)}
    elif kind == "ema":
        kwargs_o = {"avg_fn": swa.get_ema_avg_fn(0.8)}
        kwargs_t = {"avg_fn": tswa.get_ema_avg_fn(0.8)}
    elif kind == "swa_buffers":
        kwargs_o = kwargs_t = {"use_buffers": True}
    avg_o = swa.AveragedModel(ours, **kwargs_o)
    avg_t = tswa.AveragedModel(theirs, **kwargs_t)
    assert isinstance(avg_o, lib.nn.Module) and avg_o.module is not ours
    assert str(avg_o) == str(avg_t)
    assert list(avg_o.state_dict()) == list(avg_t.state_dict())
    opt_o = lib.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
    opt_t = torch.optim.SGD(theirs.parameters(), lr=0.1, momentum=0.9)
    rng = np.random.default_rng(1)
    for _ in range(4):
        _train_step(lib, torch, ours, theirs, opt_o, opt_t, rng.standard_normal((6, 3)))
        avg_o.update_parameters(ours)
        avg_t.update_parameters(theirs)
        for k, v in avg_t.state_dict().items():
            np.testing.assert_allclose(_np(avg_o.state_dict()[k]), v.numpy(), rtol=1e-9,
                                       atol=1e-12, err_msg=k)
    x = rng.standard_normal((5, 3))
    avg_o.eval()
    avg_t.eval()
    np.testing.assert_allclose(_np(avg_o(lib.tg.tensor(x))), _np(avg_t(torch.tensor(x))),
                               rtol=1e-9)


def test_averaged_model_of_the_other_engine_and_errors(lib):
    torch = pytest.importorskip("torch")
    load_engine("compiled")  # both engines take part
    swa = _swa(lib)
    other = "transgrad" if lib.tg.__name__ == "transgrad.reference" else "transgrad.reference"
    other_swa = importlib.import_module(other + ".optim.swa_utils")
    avg = other_swa.AveragedModel(lib.nn.Linear(2, 2))
    assert type(avg) is swa.AveragedModel and isinstance(avg, lib.nn.Module)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        swa.AveragedModel(lib.nn.Linear(2, 2), avg_fn=swa.get_swa_avg_fn(),
                          multi_avg_fn=swa.get_swa_multi_avg_fn())
    with raises_like(lambda: torch.optim.swa_utils.get_ema_multi_avg_fn(1.5)):
        swa.get_ema_multi_avg_fn(1.5)
    assert lib.optim.swa_utils is swa


@pytest.mark.parametrize("kwargs", [{}, {"anneal_strategy": "linear", "anneal_epochs": 3},
                                    {"anneal_epochs": 0}])
def test_swalr_learning_rates_follow_torch(lib, kwargs):
    torch = pytest.importorskip("torch")
    swa = _swa(lib)
    ours, theirs = _pair(lib, torch)
    opt_o = lib.optim.SGD([{"params": ours[0].parameters()},
                           {"params": ours[3].parameters(), "lr": 0.3}], lr=0.5)
    opt_t = torch.optim.SGD([{"params": theirs[0].parameters()},
                             {"params": theirs[3].parameters(), "lr": 0.3}], lr=0.5)
    sched_o = swa.SWALR(opt_o, swa_lr=[0.05, 0.01], **kwargs)
    sched_t = torch.optim.swa_utils.SWALR(opt_t, swa_lr=[0.05, 0.01], **kwargs)
    rng = np.random.default_rng(3)
    for _ in range(14):
        _train_step(lib, torch, ours, theirs, opt_o, opt_t, rng.standard_normal((4, 3)))
        sched_o.step()
        sched_t.step()
        np.testing.assert_allclose(sched_o.get_last_lr(), sched_t.get_last_lr(), rtol=1e-12)
    state = sched_o.state_dict()
    assert "anneal_func" not in state and set(state) == set(sched_t.state_dict())
    again = swa.SWALR(opt_o, swa_lr=0.5)
    again.load_state_dict(state)
    assert again.anneal_func(0.5) == sched_t.anneal_func(0.5)
    with raises_like(lambda: torch.optim.swa_utils.SWALR(opt_t, 0.1, anneal_strategy="x")):
        swa.SWALR(opt_o, 0.1, anneal_strategy="x")
    with raises_like(lambda: torch.optim.swa_utils.SWALR(opt_t, 0.1, anneal_epochs=-1)):
        swa.SWALR(opt_o, 0.1, anneal_epochs=-1)


def test_update_bn_recomputes_running_stats_as_torch(lib):
    torch = pytest.importorskip("torch")
    swa = _swa(lib)
    ours, theirs = _pair(lib, torch)
    ours.eval()
    theirs.eval()
    rng = np.random.default_rng(2)
    batches = [rng.standard_normal((4, 3)) * 2 + 1 for _ in range(3)]
    swa.update_bn([(lib.tg.tensor(b), 0) for b in batches], ours)
    torch.optim.swa_utils.update_bn([(torch.tensor(b), 0) for b in batches], theirs)
    assert not ours.training and ours[1].momentum == theirs[1].momentum == 0.1
    for k, v in theirs.state_dict().items():
        np.testing.assert_allclose(_np(ours.state_dict()[k]), v.numpy(), rtol=1e-10, err_msg=k)
    plain = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.InstanceNorm1d(2))
    assert swa.update_bn([lib.tg.ones(2, 2, 3)], plain) is None  # no batch norm: untouched
