"""nn.functional vs torch.nn.functional: values and first derivatives, float64.

(Second derivatives of the formulas behind these are checked by gradgradcheck in
tests/formulas from the formulas' @samples.)
"""

import numpy as np
import pytest
from _nnhelpers import to_numpy, torch_lib

rng = np.random.default_rng(0)


def f(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, size=shape)


def idx(*shape, high):
    return rng.integers(0, high, size=shape).astype(np.int64)


def with_ignored(t, value=-100):
    t = t.copy()
    t.flat[1] = value
    return t


# name -> (function name, positional args, keyword args). Float arrays require grad, except
# those given as ("const", array).
CASES = {
    "linear": ("linear", (f(4, 3), f(5, 3), f(5)), {}),
    "linear_3d_nobias": ("linear", (f(2, 4, 3), f(5, 3)), {}),
    # large enough (M * N * K > 512) for the gemm that adds the bias (kernel linear_gemm)
    "linear_one_gemm": ("linear", (f(6, 10, 12), f(16, 12), f(16)), {}),
    "linear_one_gemm_nobias": ("linear", (f(60, 12), f(16, 12)), {}),
    "relu": ("relu", (f(3, 4),), {}),
    "tanh": ("tanh", (f(3, 4),), {}),
    "sigmoid": ("sigmoid", (f(3, 4),), {}),
    "silu": ("silu", (f(3, 4, low=-6, high=6),), {}),
    "gelu": ("gelu", (f(3, 4, low=-4, high=4),), {}),
    "gelu_tanh": ("gelu", (f(3, 4, low=-4, high=4),), {"approximate": "tanh"}),
    "softplus": ("softplus", (f(3, 4),), {}),
    "softplus_beta": ("softplus", (f(3, 4),), {"beta": 2.0}),
    "softplus_threshold": ("softplus", (f(3, 4),), {"beta": 2.0, "threshold": 1.5}),
    "softplus_large": ("softplus", (f(3, 4, low=-60, high=60),), {}),
    "elu": ("elu", (f(3, 4),), {}),
    "elu_alpha": ("elu", (f(3, 4),), {"alpha": 0.5}),
    "leaky_relu": ("leaky_relu", (f(3, 4),), {}),
    "leaky_relu_slope": ("leaky_relu", (f(3, 4),), {"negative_slope": 0.2}),
    "softmax": ("softmax", (f(3, 4),), {"dim": 1}),
    "log_softmax": ("log_softmax", (f(3, 4),), {"dim": 0}),
    "layer_norm": ("layer_norm", (f(3, 5), (5,), f(5), f(5)), {}),
    "layer_norm_2d": ("layer_norm", (f(2, 3, 4), (3, 4)), {"eps": 1e-3}),
    "embedding": ("embedding", (idx(2, 3, high=6), f(6, 4)), {}),
    "mse_loss": ("mse_loss", (f(4, 3), f(4, 3)), {}),
    "mse_loss_sum": ("mse_loss", (f(4, 3), f(4, 3)), {"reduction": "sum"}),
    "mse_loss_none": ("mse_loss", (f(4, 3), f(4, 3)), {"reduction": "none"}),
    "cross_entropy": ("cross_entropy", (f(6, 5), idx(6, high=5)), {}),
    "cross_entropy_sum": ("cross_entropy", (f(6, 5), idx(6, high=5)), {"reduction": "sum"}),
    "cross_entropy_none": ("cross_entropy", (f(6, 5), idx(6, high=5)), {"reduction": "none"}),
    "cross_entropy_large_logits": ("cross_entropy", (f(4, 3, low=-800, high=800),
                                                     idx(4, high=3)), {}),
    "cross_entropy_weight": ("cross_entropy", (f(6, 5), idx(6, high=5)),
                             {"weight": ("const", f(5, low=0.5, high=2.0))}),
    "cross_entropy_ignore": ("cross_entropy", (f(6, 5), with_ignored(idx(6, high=5))), {}),
    "cross_entropy_ignore_none": ("cross_entropy", (f(6, 5), with_ignored(idx(6, high=5), 2)),
                                  {"ignore_index": 2, "reduction": "none"}),
    "cross_entropy_smoothing": ("cross_entropy", (f(6, 5), idx(6, high=5)),
                                {"label_smoothing": 0.1}),
    "cross_entropy_smoothing_all": (
        "cross_entropy", (f(6, 5), with_ignored(idx(6, high=5))),
        {"label_smoothing": 0.2, "weight": ("const", f(5, low=0.5, high=2.0))}),
    "cross_entropy_smoothing_sum": ("cross_entropy", (f(6, 5), idx(6, high=5)),
                                    {"label_smoothing": 0.3, "reduction": "sum"}),
    "cross_entropy_smoothing_none": ("cross_entropy", (f(6, 5), idx(6, high=5)),
                                     {"label_smoothing": 0.3, "reduction": "none"}),
    "cross_entropy_spatial": ("cross_entropy", (f(2, 4, 3), idx(2, 3, high=4)), {}),
    "cross_entropy_spatial_none": ("cross_entropy", (f(2, 4, 3), idx(2, 3, high=4)),
                                   {"reduction": "none"}),
    "cross_entropy_unbatched": ("cross_entropy", (f(5), idx(high=5)), {}),
    "nll_loss": ("nll_loss", (f(6, 5), idx(6, high=5)), {}),
    "nll_loss_weight_ignore": ("nll_loss", (f(6, 5), with_ignored(idx(6, high=5))),
                               {"weight": ("const", f(5, low=0.5, high=2.0))}),
    "nll_loss_none": ("nll_loss", (f(6, 5), idx(6, high=5)), {"reduction": "none"}),
    "bce_with_logits": ("binary_cross_entropy_with_logits", (f(3, 4), f(3, 4, low=0, high=1)),
                        {}),
    "bce_with_logits_large": ("binary_cross_entropy_with_logits",
                              (f(3, 4, low=-100, high=100), f(3, 4, low=0, high=1)), {}),
    "bce_with_logits_weights": ("binary_cross_entropy_with_logits",
                                (f(3, 4), f(3, 4, low=0, high=1)),
                                {"weight": ("const", f(4, low=0.5, high=2)),
                                 "pos_weight": ("const", f(4, low=0.5, high=3))}),
    "bce_with_logits_none": ("binary_cross_entropy_with_logits",
                             (f(3, 4), f(3, 4, low=0, high=1)),
                             {"reduction": "none", "pos_weight": ("const", f(4, low=0.5, high=3))}),
    "bce_with_logits_sum": ("binary_cross_entropy_with_logits",
                            (f(3, 4), f(3, 4, low=0, high=1)), {"reduction": "sum"}),
}


def _convert(tg, v, grads):
    if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) and v[0] == "const":
        return tg.tensor(v[1], dtype=tg.float64)
    if isinstance(v, np.ndarray):
        if v.dtype == np.int64:
            return tg.tensor(v, dtype=tg.int64)
        t = tg.tensor(v, dtype=tg.float64, requires_grad=True)
        grads.append(t)
        return t
    return v


def evaluate(lib, case):
    """The output and the gradient of ``sum(out * w)`` for each float input (w fixed)."""
    name, args, kwargs = CASES[case]
    tg = lib.tg
    inputs = []
    a = [_convert(tg, v, inputs) for v in args]
    k = {key: _convert(tg, v, inputs) for key, v in kwargs.items()}
    out = getattr(lib.F, name)(*a, **k)
    w = np.random.default_rng(1).uniform(0.5, 1.5, size=tuple(out.shape))
    (out * tg.tensor(w, dtype=tg.float64)).sum().backward()
    return to_numpy(out), [to_numpy(t.grad) if t.grad is not None else None for t in inputs]


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_torch(lib, case):
    expected, expected_grads = evaluate(torch_lib(), case)
    got, got_grads = evaluate(lib, case)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    assert len(got_grads) == len(expected_grads)
    for i, (g, e) in enumerate(zip(got_grads, expected_grads)):
        if e is None:
            assert g is None or not np.any(g), f"input {i}: torch has no gradient"
            continue
        np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-11, err_msg=f"gradient of input {i}")


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_linear_one_gemm_gradgradcheck(lib, layout):
    """The path where the gemm adds the bias (Note [linear's bias in the gemm]), with x and the
    weight read in place from transposed storage too: first and second derivatives."""
    tg = lib.tg
    r = np.random.default_rng(7)
    x, w, b = r.standard_normal((24, 12)), r.standard_normal((16, 12)), r.standard_normal(16)
    if layout == "transposed":
        x, w = np.asfortranarray(x), np.asfortranarray(w)
    args = [tg.tensor(a, requires_grad=True) for a in (x, w, b)]
    if layout == "transposed":
        args[0] = tg.tensor(x.T.copy(), requires_grad=True)
        args[1] = tg.tensor(w.T.copy(), requires_grad=True)

    def fn(xx, ww, bb):
        if layout == "transposed":
            xx, ww = xx.t(), ww.t()
        return lib.F.linear(xx, ww, bb)

    expected = x @ w.T + b
    np.testing.assert_allclose(to_numpy(fn(*args)), expected, rtol=1e-12, atol=1e-12)
    assert tg.autograd.gradcheck(fn, args)
    assert tg.autograd.gradgradcheck(fn, args)


def test_bad_arguments(lib):
    tg, F = lib.tg, lib.F
    x = tg.tensor(np.zeros((2, 3)), dtype=tg.float64)
    t = tg.tensor(np.zeros(2, dtype=np.int64), dtype=tg.int64)
    with pytest.raises(ValueError, match="reduction"):
        F.cross_entropy(x, t, reduction="avg")
    with pytest.raises(TypeError, match="int64 class indices"):
        F.cross_entropy(x, tg.tensor(np.zeros(2), dtype=tg.float64))
    with pytest.warns(UserWarning, match="different to the input size"):  # as torch
        F.mse_loss(x, tg.tensor(np.zeros(3), dtype=tg.float64))
    with pytest.raises(ValueError, match="approximate"):
        F.gelu(x, approximate="fast")
    with pytest.raises(ValueError, match="dropout probability"):
        F.dropout(x, 1.5)


def test_one_hot(lib):
    tg, F = lib.tg, lib.F
    out = F.one_hot(tg.tensor(np.array([0, 2, 1]), dtype=tg.int64), 4)
    np.testing.assert_array_equal(to_numpy(out), np.eye(4, dtype=np.int64)[[0, 2, 1]])
