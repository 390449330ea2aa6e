"""The multi-tensor steps of SGD, Adam/AdamW, RMSprop and Adagrad (Note [Fused optimizer
steps] in transgrad/optim/optimizer.py): trajectories of torch's single-tensor step
(foreach=False, its CPU default), bit for bit for SGD on the compiled engine, else to a few ulps
of the update (torch's sqrt is MKL's; numpy has no fma), in float32 and float64, over
parameters of several sizes and one group per call; close to torch's ``fused=True``; state
dicts that move between torch and transgrad; versions bumped as an in-place op; the kernels'
argument checks."""

import itertools

import numpy as np
import pytest

SHAPES = [(7, 13), (5,), (1,), (3, 2, 4), (40,)]  # sizes off the SIMD width, and a tail
STEPS = 6


def grads_at(k, dtype):
    rng = np.random.default_rng(100 + k)
    return [(rng.standard_normal(s) * (0.5 + 0.3 * k)).astype(dtype) for s in SHAPES]


def start(dtype):
    rng = np.random.default_rng(7)
    return [rng.standard_normal(s).astype(dtype) for s in SHAPES]


def run(L, cls, kwargs, dtype, steps=STEPS, load=None):
    """The parameters after each step, fed fixed gradients (so the test sees the update only)."""
    tg = L.tg
    tdt = getattr(tg, np.dtype(dtype).name)
    params = [L.nn.Parameter(tg.tensor(a, dtype=tdt)) for a in start(dtype)]
    opt = getattr(L.optim, cls)(params, **kwargs)
    if load is not None:
        opt.load_state_dict(load(L, params))
    out = []
    for k in range(steps):
        for p, g in zip(params, grads_at(k, dtype)):
            p.grad = tg.tensor(g, dtype=tdt)
        opt.step()
        out.append([p.detach().numpy().copy() for p in params])
    return params, opt, out


def combos(**choices):
    names = sorted(choices)
    for values in itertools.product(*(choices[n] for n in names)):
        yield dict(zip(names, values))


CONFIGS = [("SGD", {"lr": 0.1, **kw}) for kw in combos(
    momentum=[0, 0.9], weight_decay=[0, 0.05], maximize=[False, True])]
CONFIGS += [("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.05}),
            ("SGD", {"lr": 0.1, "momentum": 0.8, "dampening": 0.3})]
CONFIGS += [("Adam", {"lr": 0.01, **kw}) for kw in combos(
    amsgrad=[False, True], weight_decay=[0, 0.1], maximize=[False, True])]
CONFIGS += [("Adam", {"betas": (0.3, 0.8), "eps": 1e-3}),  # lerp's large-weight branch
            ("Adam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True})]
CONFIGS += [("AdamW", {"lr": 0.01, **kw}) for kw in combos(
    amsgrad=[False, True], maximize=[False, True])]
CONFIGS += [("RMSprop", {"lr": 0.01, **kw}) for kw in combos(
    centered=[False, True], momentum=[0, 0.8], weight_decay=[0, 0.1])]
CONFIGS += [("RMSprop", {"lr": 0.01, "alpha": 0.3, "centered": True, "maximize": True})]
CONFIGS += [("Adagrad", {"lr": 0.1, **kw}) for kw in combos(
    lr_decay=[0, 0.05], weight_decay=[0, 0.1], initial_accumulator_value=[0, 0.3])]
CONFIGS += [("Adagrad", {"lr": 0.1, "maximize": True})]


def _id(config):
    cls, kw = config
    return cls + "-" + ",".join(f"{k}={v}" for k, v in sorted(kw.items()))


def max_ulp(cls, compiled):
    """How far from torch a step may be, in ulps of the parameter: none for SGD compiled;
    numpy has no fma (the reference emulates it: rare double-rounding ties); torch's sqrt is
    MKL's, which is within an ulp of the correctly rounded root ours is (Note [Optimizer steps
    in torch's order]), so the steps that take a root differ by an ulp now and then."""
    if cls == "SGD":
        return 0 if compiled else 1
    return 4


def assert_same(got, want, maxulp, origin):
    """Bit for bit (``maxulp`` 0), else within ``maxulp`` ulps of each value or of the
    parameters' displacement from ``origin`` (where a parameter nears zero its own ulp is finer
    than the rounding of the update that moved it)."""
    for step_got, step_want in zip(got, want):
        for a, b, o in zip(step_got, step_want, origin):
            assert a.dtype == b.dtype
            if maxulp == 0:
                np.testing.assert_array_equal(a, b)
                continue
            eps = np.finfo(a.dtype).eps
            moved = float(np.abs(b.astype(np.float64) - o).max())
            np.testing.assert_allclose(a, b, rtol=maxulp * eps, atol=maxulp * eps * moved)


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("config", CONFIGS, ids=[_id(c) for c in CONFIGS])
def test_matches_torch_single_tensor_step(lib, torch_lib, config, dtype):
    cls, kwargs = config
    _, _, want = run(torch_lib, cls, {**kwargs, "foreach": False}, dtype)
    _, _, got = run(lib, cls, kwargs, dtype)
    assert_same(got, want, max_ulp(cls, lib.tg.__name__ == "transgrad"), start(dtype))


FUSED = [("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.05}),
         ("Adam", {"lr": 0.01, "amsgrad": True}), ("AdamW", {"lr": 0.01}),
         ("Adagrad", {"lr": 0.1, "weight_decay": 0.1})]


@pytest.mark.torch
@pytest.mark.parametrize("config", FUSED, ids=[_id(c) for c in FUSED])
def test_close_to_torch_fused_step(lib, torch_lib, config):
    """torch's fused CPU kernels order some operations differently: a few ulp apart."""
    cls, kwargs = config
    _, _, want = run(torch_lib, cls, {**kwargs, "fused": True}, np.float32)
    _, _, got = run(lib, cls, {**kwargs, "fused": True}, np.float32)
    for step_got, step_want in zip(got, want):
        for a, b in zip(step_got, step_want):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def to_numpy_state(sd):
    return {"state": {i: {k: (np.array(v.detach().numpy()) if hasattr(v, "numpy") else v)
                          for k, v in s.items()} for i, s in sd["state"].items()},
            "param_groups": sd["param_groups"]}


def from_numpy_state(L, sd, floats_as_tensors):
    def conv(v):
        if isinstance(v, np.ndarray):
            return L.tg.tensor(v) if v.ndim else (L.tg.tensor(float(v)) if floats_as_tensors
                                                  else float(v))
        return L.tg.tensor(float(v)) if floats_as_tensors else v
    return {"state": {i: {k: conv(v) for k, v in s.items()} for i, s in sd["state"].items()},
            "param_groups": sd["param_groups"]}


MOVES = [("Adam", {"lr": 0.01, "amsgrad": True}), ("AdamW", {"lr": 0.01}),
         ("SGD", {"lr": 0.1, "momentum": 0.9}), ("RMSprop", {"centered": True, "momentum": 0.5}),
         ("Adagrad", {"lr_decay": 0.01})]


@pytest.mark.torch
@pytest.mark.parametrize("config", MOVES, ids=[_id(c) for c in MOVES])
def test_state_dict_moves_between_torch_and_transgrad(lib, torch_lib, config):
    """Three steps in one library, the state dict loaded into the other, three more there:
    the same parameters as six steps in torch alone (keys and tensors unchanged)."""
    cls, kwargs = config
    kwargs = {**kwargs, "foreach": False} if cls != "Adagrad" else kwargs
    dtype = np.float64
    _, _, want = run(torch_lib, cls, kwargs, dtype, steps=6)
    compiled = lib.tg.__name__ == "transgrad"

    for first, second, tensors in ((torch_lib, lib, False), (lib, torch_lib, True)):
        params, opt, _ = run(first, cls, kwargs, dtype, steps=3)
        saved = to_numpy_state(opt.state_dict())
        values = [p.detach().numpy().copy() for p in params]

        def load(L, ps, saved=saved, values=values, tensors=tensors):
            with L.tg.no_grad():
                for p, v in zip(ps, values):
                    p.copy_(L.tg.tensor(v))
            return from_numpy_state(L, saved, tensors)

        # the second library starts from the first's parameters and state, at step 3
        tg = second.tg
        ps = [second.nn.Parameter(tg.tensor(a)) for a in start(dtype)]
        opt2 = getattr(second.optim, cls)(ps, **kwargs)
        opt2.load_state_dict(load(second, ps))
        got = []
        for k in range(3, 6):
            for p, g in zip(ps, grads_at(k, dtype)):
                p.grad = tg.tensor(g)
            opt2.step()
            got.append([p.detach().numpy().copy() for p in ps])
        assert_same(got, want[3:], max_ulp(cls, compiled), want[2])
        assert set(opt2.state_dict()["state"][0]) == set(saved["state"][0])


@pytest.mark.parametrize("cls", ["SGD", "Adam", "RMSprop", "Adagrad"])
def test_step_bumps_the_version_so_a_saved_parameter_refuses_backward(lib, cls):
    tg = lib.tg
    p = lib.nn.Parameter(tg.tensor([1.0, 2.0, 3.0]))
    opt = getattr(lib.optim, cls)([p], lr=0.1)
    y = (p * p).sum()  # saves p
    p.grad = tg.tensor([1.0, 1.0, 1.0])
    before = p._version
    opt.step()
    assert p._version > before
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_float16_parameters_take_the_per_parameter_path(lib):
    tg = lib.tg
    p = lib.nn.Parameter(tg.tensor([1.0, 2.0], dtype=tg.float16))
    opt = lib.optim.Adam([p], lr=0.5)
    p.grad = tg.tensor([1.0, -1.0], dtype=tg.float16)
    opt.step()
    assert p.dtype == tg.float16
    np.testing.assert_allclose(p.detach().numpy().astype(np.float64), [0.5, 2.5], rtol=1e-3)


@pytest.mark.parametrize("cls", ["SGD", "Adam"])
def test_non_contiguous_parameters_step_as_contiguous_ones(lib, cls):
    """A transposed parameter (or gradient) takes the per-parameter path: the update of a
    contiguous copy of it (to rounding), never the kernels' contiguity error."""
    tg = lib.tg
    a = np.arange(12.0).reshape(3, 4) / 7
    g = np.cos(np.arange(12.0)).reshape(4, 3)
    kw = {"lr": 0.1, "momentum": 0.9} if cls == "SGD" else {"lr": 0.1}
    p_t = lib.nn.Parameter(tg.tensor(a).t())
    p_c = lib.nn.Parameter(tg.tensor(a.T.copy()))
    assert not p_t.is_contiguous() and p_c.is_contiguous()
    opts = [getattr(lib.optim, cls)([p], **kw) for p in (p_t, p_c)]
    for _ in range(3):
        p_t.grad = tg.tensor(g.T.copy()).t()  # a non-contiguous gradient too
        p_c.grad = tg.tensor(g)
        for opt in opts:
            opt.step()
    # the per-parameter path rounds as separate ops, the kernel as torch's fused multiply-adds
    np.testing.assert_allclose(p_t.detach().numpy(), p_c.detach().numpy(), rtol=1e-13, atol=0)


def test_kernel_arguments_are_checked(lib):
    from transgrad._backend import backend_of

    tg = lib.tg
    p = tg.zeros(3)
    kernels = backend_of(p).optim
    with pytest.raises(ValueError, match="expected 1 grads, got 0"):
        kernels.sgd_step_([p], [], [], [], 0.1, 0.0, 0.0, 0.0, False, False)
    with pytest.raises(ValueError, match="must be a .*tensor of its parameter's dtype and size"):
        kernels.adagrad_step_([p], [tg.zeros(4)], [tg.zeros(3)], [0.1], 0.0, 1e-10, False)
    with pytest.raises(ValueError, match="expected float32 or float64"):
        kernels.adagrad_step_([tg.zeros(3, dtype=tg.int64)], [tg.zeros(3, dtype=tg.int64)],
                              [tg.zeros(3, dtype=tg.int64)], [0.1], 0.0, 1e-10, False)


def test_step_returns_the_closure_loss(lib):
    tg = lib.tg
    p = lib.nn.Parameter(tg.tensor([1.0, -2.0]))
    opt = lib.optim.SGD([p], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert float(loss) == 5.0
    np.testing.assert_array_equal(p.detach().numpy(), [0.5, -1.0])


@pytest.mark.parametrize("cls", ["SGD", "Adam", "AdamW", "Adagrad"])
def test_fused_and_foreach_together_are_refused_as_torch(lib, cls):
    p = lib.nn.Parameter(lib.tg.tensor([1.0]))
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together"):
        getattr(lib.optim, cls)([p], fused=True, foreach=True)
