"""Edge cases the formulas' docstrings promise, checked on both engines against the definition
(not finite differences, which do not apply at ties or poles): amax/amin split the gradient
evenly among ties (so does median), pow's exponent gradient at a zero base, masked_fill_tensor's
checks. The same tie samples are compared with torch in test_formula_torch.py.
"""

import numpy as np
import pytest
from formula_samples import engine_call, on_ties, op, shipped_formulas

FORMULAS = shipped_formulas()


def _np(t):
    return np.asarray(t.detach().numpy() if hasattr(t, "detach") else t)


def _lower_median(a, axis, keepdims):
    return np.sort(a.reshape(-1))[(a.size - 1) // 2].reshape((1,) * a.ndim)


@pytest.mark.parametrize("name", ["amax", "amin", "median"])
def test_extrema_split_the_gradient_evenly_among_ties(engine, name):
    pick = {"amax": np.max, "amin": np.min, "median": _lower_median}[name]
    checked = 0
    for i, spec in enumerate(FORMULAS[name].samples):
        if not on_ties(spec):
            continue
        call = engine_call(engine, name, i)
        (x,) = call.leaves()
        out = call()
        (g,) = engine.autograd.grad([out], [x], [engine.ones(tuple(out.shape), dtype=x.dtype)])
        a = _np(x)
        dims = spec.args[1] if len(spec.args) > 1 else spec.kwargs.get("dims")
        axes = tuple(range(a.ndim)) if dims is None else tuple(d % a.ndim for d in dims)
        ties = a == pick(a, axis=axes, keepdims=True)
        expected = ties / ties.sum(axis=axes, keepdims=True)
        assert (ties.sum(axis=axes) > 1).any(), f"{name} sample {i} has no ties"
        np.testing.assert_allclose(_np(g), expected, rtol=0, atol=1e-15)
        checked += 1
    assert checked >= 2


def test_pow_exponent_gradient_at_a_zero_base(engine):
    pow_ = op(engine, "pow")
    base = engine.tensor(np.zeros(4))
    exponent = engine.tensor(np.array([-1.0, 0.0, 2.0, -0.5]), requires_grad=True)
    out = pow_(base, exponent)
    (g,) = engine.autograd.grad([out], [exponent], [engine.ones((4,), dtype=out.dtype)])
    # 0 ** b is flat for b >= 0; for b < 0, d/db = 0 ** b * log(0) = inf * -inf (as torch)
    np.testing.assert_array_equal(_np(g), [-np.inf, 0.0, 0.0, -np.inf])


def test_masked_fill_tensor_keeps_the_value_gradient(engine):
    fill = op(engine, "masked_fill_tensor")
    x = engine.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    mask = engine.tensor(np.array([[True, False, True], [False, False, True]]))
    value = engine.tensor(np.array(7.0), requires_grad=True)
    out = fill(x, mask, value)
    np.testing.assert_array_equal(_np(out), np.where(_np(mask), 7.0, _np(x)))
    w = np.arange(1.0, 7.0).reshape(2, 3)
    gx, gv = engine.autograd.grad([out], [x, value], [engine.tensor(w)])
    np.testing.assert_array_equal(_np(gx), np.where(_np(mask), 0.0, w))
    assert _np(gv).shape == () and float(_np(gv)) == w[_np(mask)].sum()


def test_masked_fill_tensor_rejects_a_value_with_dims(engine):
    fill = op(engine, "masked_fill_tensor")
    x = engine.tensor(np.zeros(3))
    mask = engine.tensor(np.ones(3, dtype=bool))
    with pytest.raises(RuntimeError,
                       match=r"only supports a 0-dimensional value tensor \(got 1-D\)"):
        fill(x, mask, engine.tensor(np.ones(2)))


def test_index_copy_rejects_duplicate_indices(engine):
    copy = op(engine, "index_copy")
    x = engine.tensor(np.zeros((4, 2)))
    index = engine.tensor(np.array([1, 1]))
    with pytest.raises(RuntimeError, match="duplicate entries"):
        copy(x, 0, index, engine.tensor(np.ones((2, 2))))


@pytest.mark.parametrize("name, args, message", [
    ("polygamma", lambda e: (-1, e.tensor(np.ones(3))), "does not support negative n"),
    ("scatter", lambda e: (e.tensor(np.zeros((3, 4))), 0, e.tensor(np.zeros((1, 4))),
                           e.tensor(np.ones((1, 4)))), "Expected dtype int64 for index"),
    ("scatter", lambda e: (e.tensor(np.zeros((3, 4))), 0, e.tensor(np.zeros(4, dtype=np.int64)),
                           e.tensor(np.ones((1, 4)))), "same number of dimensions"),
    ("masked_select", lambda e: (e.tensor(np.zeros(3)), e.tensor(np.ones(3))),
     "expected BoolTensor for mask"),
    ("masked_scatter", lambda e: (e.tensor(np.zeros(3)), e.tensor(np.ones(3, dtype=bool)),
                                  e.tensor(np.ones(2))), "Number of elements of source"),
    ("div_floor", lambda e: (e.tensor(np.array([3])), e.tensor(np.array([0]))),
     "ZeroDivisionError"),
    ("fmod", lambda e: (e.tensor(np.array([3])), e.tensor(np.array([0]))), "ZeroDivisionError"),
    ("inverse", lambda e: (e.tensor(np.ones((2, 2))),), "input matrix is singular"),
    ("solve", lambda e: (e.tensor(np.ones((2, 2))), e.tensor(np.ones(2))), "matrix is singular"),
    ("det", lambda e: (e.tensor(np.ones((2, 3))),), "must be batches of square matrices"),
    ("cholesky", lambda e: (e.tensor(np.diag([1.0, -1.0, 2.0])),),
     r"not positive-definite \(the leading minor of order 2 is not positive-definite\)"),
    ("cholesky", lambda e: (e.tensor(np.stack([np.eye(2), -np.eye(2)])),),
     r"\(Batch element 1\): The factorization could not be completed"),
    ("eigh", lambda e: (e.tensor(np.ones((2, 3))),), "must be batches of square matrices"),
])
def test_errors_use_torchs_words(engine, name, args, message):
    with pytest.raises(RuntimeError, match=message):
        op(engine, name)(*args(engine))


@pytest.mark.parametrize("name", ["cdist", "pdist"])
def test_distances_match_torchs_own_first_order(engine, name):
    torch = pytest.importorskip("torch")
    twin = {"cdist": torch.cdist, "pdist": torch.nn.functional.pdist}[name]
    for i, spec in enumerate(FORMULAS[name].samples):
        call = engine_call(engine, name, i)
        leaves = call.leaves()
        t_leaves = [torch.tensor(_np(x), requires_grad=True) for x in leaves]
        out, t_out = call(), twin(*t_leaves, *spec.args[len(leaves):])
        np.testing.assert_allclose(_np(out), t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
        w = np.random.default_rng(i).standard_normal(tuple(t_out.shape))
        grads = engine.autograd.grad([out], leaves, [engine.tensor(w)])
        t_grads = torch.autograd.grad([t_out], t_leaves, [torch.tensor(w)])
        for g, t_g in zip(grads, t_grads):
            np.testing.assert_allclose(_np(g), t_g.numpy(), rtol=1e-9, atol=1e-12)
