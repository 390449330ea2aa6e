"""gradcheck / gradgradcheck: they pass on correct ops and, crucially, fail on wrong ones."""

import numpy as np
import pytest


def f64(tg, a, requires_grad=True):
    return tg.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


RNG = np.random.default_rng(1)

PROGRAMS = {
    "sin_mul": lambda tg: ((lambda x, y: x.sin() * y), (RNG.standard_normal((2, 3)),
                                                        RNG.standard_normal(3))),
    "softmax": lambda tg: ((lambda x: tg.softmax(x, -1)), (RNG.standard_normal((2, 4)),)),
    "matmul": lambda tg: ((lambda a, b: a @ b), (RNG.standard_normal((2, 3)),
                                                 RNG.standard_normal((3, 2)))),
    "index": lambda tg: ((lambda x: x[1:, [0, 2, 2]] * x[0]), (RNG.standard_normal((3, 3)),)),
    "reduce": lambda tg: ((lambda x: x.logsumexp(1) + x.mean(0).sum() + x.amax(1)),
                          (RNG.standard_normal((3, 4)),)),
    "two_outputs": lambda tg: ((lambda x: (x.exp(), (x * x).sum(0))),
                               (RNG.standard_normal((2, 2)),)),
    "max_dim": lambda tg: ((lambda x: x.max(1).values), (RNG.standard_normal((3, 4)),)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_and_gradgradcheck_pass(engine, name, fast_mode):
    tg = engine
    fn, arrays = PROGRAMS[name](tg)
    inputs = tuple(f64(tg, a) for a in arrays)
    assert tg.autograd.gradcheck(fn, inputs, fast_mode=fast_mode)
    assert tg.autograd.gradgradcheck(fn, inputs, fast_mode=fast_mode)


def test_gradcheck_catches_a_wrong_formula(ref):
    from formulas_for_tests import wrong_derivative

    tg = ref
    x = f64(tg, [0.3, 1.1])
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        tg.autograd.gradcheck(wrong_derivative, (x,))
    assert tg.autograd.gradcheck(wrong_derivative, (x,), raise_exception=False) is False
    assert tg.autograd.gradcheck(wrong_derivative, (x,), fast_mode=True,
                                 raise_exception=False) is False


def test_gradgradcheck_catches_a_wrong_custom_double_backward(engine):
    tg = engine

    class BadSquare(tg.autograd.Function):
        """First derivative right (2x), second derivative wrong (recorded as 3x)."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * (x * 3.0) - g * x.detach()

    x = f64(tg, [0.5, -1.5])
    assert tg.autograd.gradcheck(BadSquare.apply, (x,))
    assert tg.autograd.gradgradcheck(BadSquare.apply, (x,), raise_exception=False) is False


def test_gradcheck_catches_nondeterminism(engine):
    tg = engine
    calls = []

    class Flaky(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            calls.append(1)
            return g * (1.0 + 1e-3 * (len(calls) % 2))

    x = f64(tg, [1.0])
    with pytest.raises(RuntimeError, match="not reentrant|Jacobian mismatch"):
        tg.autograd.gradcheck(Flaky.apply, (x,), atol=1e-2, rtol=1e-2)


def test_gradcheck_requires_an_input_needing_grad(engine):
    tg = engine
    with pytest.raises(RuntimeError, match="at least one input tensor to require gradient"):
        tg.autograd.gradcheck(lambda x: x * 2, (f64(tg, [1.0], requires_grad=False),))


def test_undefined_output_grads_are_checked(ref):
    from formulas_for_tests import split2_none

    tg = ref
    assert tg.autograd.gradcheck(split2_none, (f64(tg, [0.5, -0.5]),))
    assert tg.autograd.gradgradcheck(split2_none, (f64(tg, [0.5, -0.5]),))


@pytest.mark.parametrize("name", ["cube", "sum_sq_hidden", "split2", "weighted_pair",
                                  "shape_only", "not_summed"])
def test_test_formulas_pass_gradcheck(ref, name):
    import formulas_for_tests as F

    tg = ref
    if name == "weighted_pair":
        def fn(a, b, w):
            return F.weighted_sum([a, b], w)

        inputs = (f64(tg, [1.0, 2.0]), f64(tg, [0.5, 0.1]), f64(tg, [2.0, 3.0], False))
    elif name == "not_summed":
        fn, inputs = F.not_summed, (f64(tg, np.ones((2, 3))), f64(tg, [1.0, 2.0, 3.0]))
    else:
        fn, inputs = getattr(F, name), (f64(tg, [0.7, 1.3]),)
    assert tg.autograd.gradcheck(fn, inputs)
    assert tg.autograd.gradgradcheck(fn, inputs)
