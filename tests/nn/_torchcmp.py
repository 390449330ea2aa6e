"""Run one layer or function on an engine and on torch with the same float64 inputs and
parameters, and compare the outputs, the input gradients and the parameter gradients."""

import re

import numpy as np
import pytest


def _np(t):
    t = t.detach() if hasattr(t, "detach") else t
    return t.numpy() if hasattr(t, "numpy") else np.asarray(t)


def _copy_params(lib, ours, theirs):
    """torch's initial parameter values into our layer (the layouts must agree)."""
    sd_t = theirs.state_dict()
    sd_o = ours.state_dict()
    assert list(sd_o) == list(sd_t), (list(sd_o), list(sd_t))
    for k, v in sd_t.items():
        assert tuple(sd_o[k].shape) == tuple(v.shape), k
    ours.load_state_dict({k: lib.tg.tensor(v.detach().numpy()) for k, v in sd_t.items()})


def _inputs(lib, arrays, grads):
    out = []
    for a, g in zip(arrays, grads):
        if a is None or not isinstance(a, np.ndarray):
            out.append(a)
            continue
        dt = lib.tg.float64 if a.dtype == np.float64 else lib.tg.int64
        t = lib.tg.tensor(a, dtype=dt)
        out.append(t.requires_grad_() if g else t)
    return out


def _leaves(args, grads):
    return [a for a, g in zip(args, grads) if g and a is not None]


def run_both(lib, torch, fn_ours, fn_torch, arrays, grads=None, module=None, rtol=1e-7,
             atol=1e-9, seed=0):
    """Apply ``fn_ours``/``fn_torch`` (functions, or layer factories when ``module``) to the
    same float64 ``arrays``; compare the values, then the gradients of a random projection
    of the output with respect to every array marked in ``grads`` and every parameter."""
    grads = grads or [a is not None and isinstance(a, np.ndarray) and a.dtype == np.float64
                      for a in arrays]
    ours_args = _inputs(lib, arrays, grads)
    theirs_args = []
    for a, g in zip(arrays, grads):
        if isinstance(a, np.ndarray):
            t = torch.tensor(a)
            theirs_args.append(t.requires_grad_() if g else t)
        else:
            theirs_args.append(a)
    params_o, params_t = [], []
    if module:
        m_t = fn_torch().double()
        m_o = fn_ours().double()
        _copy_params(lib, m_o, m_t)
        params_t = [p for p in m_t.parameters()]
        params_o = [p for p in m_o.parameters()]
        assert str(m_o) == str(m_t)
        fn_o, fn_t = m_o, m_t
    else:
        fn_o, fn_t = fn_ours, fn_torch
    y_t = fn_t(*theirs_args)
    y_o = fn_o(*ours_args)
    assert tuple(y_o.shape) == tuple(y_t.shape)
    np.testing.assert_allclose(_np(y_o), _np(y_t), rtol=rtol, atol=atol)
    leaves_t = _leaves(theirs_args, grads) + params_t
    leaves_o = _leaves(ours_args, grads) + params_o
    if not leaves_t or not y_t.requires_grad:
        return y_o
    v = np.random.default_rng(seed).standard_normal(tuple(y_t.shape))
    g_t = torch.autograd.grad(y_t, leaves_t, torch.tensor(v), allow_unused=True)
    g_o = lib.tg.autograd.grad(y_o, leaves_o, lib.tg.tensor(v, dtype=lib.tg.float64),
                               allow_unused=True)
    for a, b in zip(g_o, g_t):
        if b is None:
            assert a is None or np.allclose(_np(a), 0.0)
            continue
        np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol)
    return y_o


def torch_error(fn):
    """The exception torch raises from ``fn()`` (skips when it raises none)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - any torch error is the spec
        return e
    pytest.fail("torch raised no error")


def raises_like(torch_fn):
    """``pytest.raises`` for the error type and message torch raises from ``torch_fn()``
    (our message may add context after torch's words)."""
    err = torch_error(torch_fn)
    return pytest.raises(type(err), match=re.escape(str(err)))
