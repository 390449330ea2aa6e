"""Hidden outputs (issue 4, item 5; DESIGN §2): layer_norm keeps mean and rstd as hidden outputs
of its node — the user sees one tensor, double backward flows through the statistics (their
grads arrive as grad_mean, grad_rstd) and gradgradcheck passes, on both engines."""

import numpy as np
import pytest


def f64(tg, a, requires_grad=True):
    return tg.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def numpy_layer_norm(x, n_dims, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - n_dims, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    return y * (1 if w is None else w) + (0 if b is None else b)


CASES = {
    "affine": ((3, 5), (5,), True, True),
    "no_affine_2d": ((2, 3, 4), (3, 4), False, False),
    "weight_only": ((2, 6), (6,), True, False),
    "bias_only": ((4, 3), (3,), False, True),
}


def inputs(tg, shape, norm, weight, bias, seed=0):
    rng = np.random.default_rng(seed)
    x = f64(tg, rng.normal(size=shape))
    w = f64(tg, rng.uniform(0.5, 1.5, size=norm)) if weight else None
    b = f64(tg, rng.normal(size=norm)) if bias else None
    return x, w, b


def test_layer_norm_shows_one_output_and_hides_its_statistics(engine):
    tg = engine
    x, w, b = inputs(tg, (3, 5), (5,), True, True)
    y = tg.ops.layer_norm(x, (5,), w, b, 1e-5)
    assert isinstance(y, tg.Tensor)  # mean and rstd are not returned
    expected = numpy_layer_norm(x.detach().numpy(), 1, w.detach().numpy(), b.detach().numpy())
    np.testing.assert_allclose(y.detach().numpy(), expected,
                               rtol=1e-10, atol=1e-12)
    node = y.grad_fn
    assert node.name() == "NativeLayerNormBackward0"
    assert len(node.next_functions) == 3  # x, weight, bias


@pytest.mark.parametrize("case", sorted(CASES))
def test_layer_norm_gradcheck_and_gradgradcheck(engine, case):
    tg = engine
    shape, norm, weight, bias = CASES[case]
    x, w, b = inputs(tg, shape, norm, weight, bias)
    args = tuple(t for t in (x, w, b) if t is not None)

    def fn(*ts):
        it = iter(ts)
        xx = next(it)
        ww = next(it) if weight else None
        bb = next(it) if bias else None
        return tg.ops.layer_norm(xx, norm, ww, bb, 1e-5)

    assert tg.autograd.gradcheck(fn, args)
    assert tg.autograd.gradgradcheck(fn, args)


def test_layer_norm_double_backward_uses_the_statistics_grads(ref, compiled):
    """d/dx of (dL/dx) needs the gradients of mean and rstd (they depend on x): both engines
    agree and match finite differences of the first derivative."""
    results = []
    for tg in (ref, compiled):
        x, w, b = inputs(tg, (2, 4), (4,), True, True, seed=3)
        y = tg.ops.layer_norm(x, (4,), w, b, 1e-5)
        (gx,) = tg.autograd.grad((y * y * y).sum(), x, create_graph=True)
        (ggx,) = tg.autograd.grad((gx * gx).sum(), x)
        results.append(ggx.detach().numpy().copy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-9, atol=1e-12)

    def first(xa):
        x = f64(ref, xa)
        _, w, b = inputs(ref, (2, 4), (4,), True, True, seed=3)
        y = ref.ops.layer_norm(x, (4,), w, b, 1e-5)
        (gx,) = ref.autograd.grad((y * y * y).sum(), x)
        return float((gx.detach().numpy() ** 2).sum())

    xa = inputs(ref, (2, 4), (4,), True, True, seed=3)[0].detach().numpy().copy()
    eps = 1e-6
    fd = np.zeros_like(xa)
    for i in np.ndindex(xa.shape):
        up, down = xa.copy(), xa.copy()
        up[i] += eps
        down[i] -= eps
        fd[i] = (first(up) - first(down)) / (2 * eps)
    np.testing.assert_allclose(results[0], fd, rtol=1e-5, atol=1e-6)
