"""gradcheck as torch's (2.13): GradcheckError, outputs whose shape depends on the input,
functions without differentiable outputs, check_batched_grad, nondet_tol, and perturbation in
place (a function reading the outer tensor sees it). Both engines."""

import importlib

import numpy as np
import pytest


def f64(tg, a, requires_grad=True):
    return tg.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def _gradcheck_error(tg):
    return importlib.import_module(tg.autograd.__name__ + ".gradcheck").GradcheckError


def test_gradcheck_error_is_a_runtime_error_under_torchs_path(engine):
    tg = engine
    err = _gradcheck_error(tg)
    assert issubclass(err, RuntimeError)
    assert callable(tg.autograd.gradcheck)  # still the function after the submodule import
    x = f64(tg, [1.0, 2.0])
    with pytest.raises(err, match="Jacobian mismatch"):
        tg.autograd.gradcheck(lambda t: t.detach() * 2 + t, (x,))


def test_output_shape_depending_on_input_fails(engine):
    tg = engine
    x = f64(tg, [0.0, 1.0])  # x[0] > 0 flips under +-eps: the output has 1 or 2 elements
    with pytest.raises(AssertionError, match="Expected `func` to return outputs with the same "
                                             "shape when inputs are perturbed"):
        tg.autograd.gradcheck(lambda t: t[t > 0], (x,))
    with pytest.raises(AssertionError, match="same shape"):
        tg.autograd.gradcheck(lambda t: t[t > 0], (x,), fast_mode=True)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_no_differentiable_output_must_not_depend_on_input(engine, fast_mode):
    tg = engine
    x = f64(tg, [0.5, 1.5])
    with pytest.raises(_gradcheck_error(tg),
                       match="Numerical gradient for function expected to be zero"):
        tg.autograd.gradcheck(lambda t: t.detach() * 2, (x,), fast_mode=fast_mode)
    assert tg.autograd.gradcheck(lambda t: t.detach() * 2, (x,), fast_mode=fast_mode,
                                 raise_exception=False) is False
    # an output that does not require grad and does not depend on x: passes, as torch
    assert tg.autograd.gradcheck(lambda t: (t * 0).detach(), (x,), fast_mode=fast_mode)


def test_outputs_not_requiring_grad_are_skipped(engine):
    tg = engine
    x = f64(tg, [0.5, 1.5])
    assert tg.autograd.gradcheck(lambda t: (t.detach() * 2, t * 3), (x,))


def test_check_batched_grad(engine):
    tg = engine
    x = f64(tg, [0.5, -1.5, 2.0])
    assert tg.autograd.gradcheck(lambda t: t.sin() * t, (x,), check_batched_grad=True)
    assert tg.autograd.gradgradcheck(lambda t: t.sin() * t, (x,), check_batched_grad=True)
    calls = [0]

    class Stateful(tg.autograd.Function):
        """Right on the first few backward calls (the Jacobian), then keeps state."""

        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            calls[0] += 1
            return g * 2 + (calls[0] > 6) * 1.0

    with pytest.raises(_gradcheck_error(tg), match="batched gradient computation"):
        tg.autograd.gradcheck(Stateful.apply, (x,), check_batched_grad=True,
                              check_undefined_grad=False, nondet_tol=10.0)


def test_nondet_tol(engine):
    tg = engine
    state = [0.0]

    class Noisy(tg.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            state[0] += 1e-9
            return g * (2 + state[0])

    x = f64(tg, [0.5, 1.5])
    with pytest.raises(_gradcheck_error(tg), match="Backward is not reentrant"):
        tg.autograd.gradcheck(Noisy.apply, (x,))
    assert tg.autograd.gradcheck(Noisy.apply, (x,), nondet_tol=1e-6)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_perturbs_inputs_in_place(engine, fast_mode):
    tg = engine
    outer = f64(tg, [1.0, 2.0])
    seen = []

    def fn(t):
        seen.append(outer.detach().numpy().copy())
        return t * outer  # reads the outer tensor: its perturbation is part of fn's change

    # t is outer: autograd sees t * t (2t); finite differences agree only if the outer
    # tensor is perturbed too (with a perturbed copy they would see t)
    assert tg.autograd.gradcheck(fn, (outer,), fast_mode=fast_mode)
    assert any(not np.array_equal(s, [1.0, 2.0]) for s in seen)
    assert outer.tolist() == [1.0, 2.0] and outer._version == 0  # restored, no version bump


def test_perturbation_restored_when_fn_raises(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0])
    calls = [0]

    def fn(t):
        calls[0] += 1
        if calls[0] > 1:
            raise ValueError("boom")
        return t * 2

    with pytest.raises(ValueError, match="boom"):
        tg.autograd.gradcheck(fn, (x,))
    assert x.tolist() == [1.0, 2.0]


def test_torch_agrees_on_these_behaviours():
    torch = pytest.importorskip("torch")
    from torch.autograd.gradcheck import GradcheckError

    assert issubclass(GradcheckError, RuntimeError)
    x = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(AssertionError, match="same shape"):
        torch.autograd.gradcheck(lambda t: t[t > 0], (x,))
    with pytest.raises(GradcheckError, match="expected to be zero"):
        torch.autograd.gradcheck(lambda t: t.detach() * 2, (x,))
    assert torch.autograd.gradcheck(lambda t: (t.detach() * 2, t * 3), (x,))
    outer = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: t * outer, (outer,))
