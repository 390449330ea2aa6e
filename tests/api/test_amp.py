"""``transgrad.amp`` as training scripts use it: GradScaler on the CPU (scaling, unscale_,
skipped steps on overflow, the scale's backoff and growth, state_dict) compared with torch's
step by step on both engines; autocast and the CUDA spellings disabled with torch's warnings;
torch's constants."""

import math
import warnings

import numpy as np
import pytest


def _train(lib, grow_every=2):
    """A linear model under a CPU GradScaler; step 2 gets an inf gradient, so it is skipped and
    the scale backs off. Returns the scales, losses, weights and the scaler's state_dict."""
    w = lib.tensor(np.array([[0.5, -0.25], [1.0, 0.75]]), requires_grad=True)
    opt = lib.optim.SGD([w], lr=0.1, momentum=0.9)
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=grow_every)
    x = lib.tensor(np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]]))
    trace = []
    for step in range(6):
        opt.zero_grad()
        loss = (x @ w).pow(2).mean()
        if step == 2:
            loss = loss * lib.tensor(math.inf)
        scaler.scale(loss).backward()
        if step == 4:  # clipping between unscale_ and step, as the AMP recipe does
            scaler.unscale_(opt)
            lib.nn.utils.clip_grad_norm_([w], 0.5)
        scaler.step(opt)
        scaler.update()
        trace += [scaler.get_scale(), loss.item() if step != 2 else 0.0]
        trace += np.asarray(w.detach()).ravel().tolist()
    return trace, scaler.state_dict()


def test_grad_scaler_steps_as_torch(engine):
    torch = pytest.importorskip("torch")
    ours, ours_state = _train(engine)
    theirs, their_state = _train(torch)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    assert ours_state == their_state


def test_grad_scaler_misuse_errors_as_torch(engine):
    torch = pytest.importorskip("torch")
    for lib in (engine, torch):
        w = lib.ones(2, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        scaler = lib.amp.GradScaler("cpu")
        scaler.scale(w.sum()).backward()
        scaler.unscale_(opt)
        with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
            scaler.unscale_(opt)
        scaler.step(opt)
        with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step"):
            scaler.unscale_(opt)
        with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
            scaler.step(opt, closure=lambda: None)


def test_disabled_and_cuda_forms_are_no_ops_with_torchs_warnings(engine):
    torch = pytest.importorskip("torch")
    for lib in (engine, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scaler = lib.cuda.amp.GradScaler()
            ctx = lib.autocast(device_type="cuda", dtype=lib.float16)
        words = [str(w.message) for w in caught]
        assert "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling." \
            in words
        assert "CUDA is not available or torch_xla is imported. Disabling autocast." in words
        assert not scaler.is_enabled() and scaler.get_scale() == 1.0
        assert scaler.state_dict() == {}
        w = lib.ones(2, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.5)
        with ctx:
            loss = (w * 3).sum()
        assert scaler.scale(loss) is loss
        loss.backward()
        scaler.step(opt)
        scaler.update()
        assert np.asarray(w.detach()).tolist() == [-0.5, -0.5]
        with lib.amp.autocast("cpu", enabled=False):
            assert (w * 2).dtype == lib.float32


def test_cpu_autocast_warns_and_keeps_dtypes(engine):
    with pytest.warns(UserWarning, match="Disabling autocast"):
        ctx = engine.autocast("cpu", dtype=engine.bfloat16)
    with ctx:
        assert (engine.ones(2, 2) @ engine.ones(2, 2)).dtype == engine.float32

    @engine.amp.autocast("cpu", enabled=False)
    def f(x):
        return x * 2

    assert np.asarray(f(engine.ones(1))).tolist() == [2.0]


def test_constants_as_torch(engine):
    torch = pytest.importorskip("torch")
    for name in ("inf", "pi", "e", "newaxis"):
        assert getattr(engine, name) == getattr(torch, name)
    assert math.isnan(engine.nan)
    x = engine.zeros(3)
    assert tuple(x[engine.newaxis].shape) == (1, 3)
