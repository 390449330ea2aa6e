"""torch's public names for the derivative-table formulas (issue 15): every new function of
``_api/pointwise.py``, ``reductions.py``, ``linalg.py``, ``scatter.py``, its Tensor method and
``transgrad.special`` / ``transgrad.linalg`` names, on both engines, against torch when it is
installed (value, first- and second-order gradients in float64), and torch's signatures.

Each case is written once against the shared API (``m`` is ``transgrad``, ``transgrad.reference``
or ``torch``), with its inputs as specs: ``F(shape, low, high)`` floats that require grad,
``I(shape, high)`` int64 indices, ``M(shape)`` a bool mask. ``OPTIONS`` lists where the
comparison with torch is narrower, and why.
"""

from __future__ import annotations

import collections
import inspect
import re

import numpy as np
import pytest
from transgrad._api import linalg, pointwise, reductions, scatter
from transgrad._api.table_functions import __all__ as TABLE_NAMES

F = collections.namedtuple("F", "shape low high", defaults=(-2.0, 2.0))
I = collections.namedtuple("I", "shape high")  # noqa: E741
M = collections.namedtuple("M", "shape")

CASES = {
    # pointwise
    "sinh": (lambda m, x: m.sinh(x), [F((3, 4))]),
    "cosh": (lambda m, x: x.cosh(), [F((3, 4))]),
    "asinh": (lambda m, x: m.asinh(x) + m.arcsinh(x), [F((3, 4))]),
    "acosh": (lambda m, x: x.acosh() + m.arccosh(x), [F((3, 4), 1.2, 3.0)]),
    "atanh": (lambda m, x: m.atanh(x) + x.arctanh(), [F((3, 4), -0.9, 0.9)]),
    "asin": (lambda m, x: m.asin(x) + m.arcsin(x), [F((3, 4), -0.9, 0.9)]),
    "acos": (lambda m, x: x.acos() + x.arccos(), [F((3, 4), -0.9, 0.9)]),
    "atan": (lambda m, x: m.atan(x) + m.arctan(x), [F((3, 4))]),
    "atan2": (lambda m, x, y: m.atan2(x, y) + x.arctan2(y), [F((3, 4)), F((4,))]),
    "hypot": (lambda m, x, y: m.hypot(x, y), [F((2, 1, 4)), F((3, 1))]),
    "exp2": (lambda m, x: m.exp2(x) + m.special.exp2(x), [F((3, 4))]),
    "logaddexp": (lambda m, x, y: x.logaddexp(y), [F((3, 4)), F((3, 4))]),
    "sgn": (lambda m, x: m.sgn(x) * x, [F((3, 4))]),
    "nan_to_num": (lambda m, x: m.nan_to_num(m.log(x), nan=1.5, neginf=-3.0),
                   [F((3, 4), -1.0, 2.0)]),
    "lerp": (lambda m, x, y: m.lerp(x, y, 0.3), [F((3, 4)), F((4,))]),
    "lerp_tensor": (lambda m, x, y, w: x.lerp(y, w), [F((3, 4)), F((3, 4)), F((4,))]),
    "addcmul": (lambda m, x, a, b: m.addcmul(x, a, b, value=0.5), [F((3, 4)), F((3, 4)),
                                                                    F((4,))]),
    "addcdiv": (lambda m, x, a, b: x.addcdiv(a, b, value=-2),
                [F((3, 4)), F((3, 4)), F((3, 4), 0.5, 2.0)]),
    "erfc": (lambda m, x: m.erfc(x) + m.special.erfc(x), [F((3, 4))]),
    "erfinv": (lambda m, x: m.erfinv(x) + m.special.erfinv(x), [F((3, 4), -0.9, 0.9)]),
    "lgamma": (lambda m, x: m.lgamma(x) + m.special.gammaln(x), [F((3, 4), 0.5, 3.0)]),
    "digamma": (lambda m, x: x.digamma() + m.special.psi(x), [F((3, 4), 0.5, 3.0)]),
    "polygamma": (lambda m, x: m.polygamma(2, x) + x.polygamma(1), [F((3, 4), 0.5, 3.0)]),
    "logit": (lambda m, x: m.logit(x) + m.special.logit(x, eps=0.3), [F((3, 4), 0.1, 0.9)]),
    "xlogy": (lambda m, x, y: m.xlogy(x, y) + m.special.xlogy(x, 2.0),
              [F((3, 4)), F((3, 4), 0.5, 2.0)]),
    "expit": (lambda m, x: m.special.expit(x), [F((3, 4))]),
    "clamp_min": (lambda m, x, y: m.clamp_min(x, 0.3) + x.clamp_max(y), [F((3, 4)), F((4,))]),
    "deg2rad": (lambda m, x: m.deg2rad(x) * x.rad2deg(), [F((3, 4))]),
    "frac": (lambda m, x: m.frac(x) * x.frac(), [F((3, 4), -5.0, 5.0)]),
    "logaddexp2": (lambda m, x, y: x.logaddexp2(y) + m.logaddexp2(y, x), [F((3, 4)),
                                                                            F((4,))]),
    "rsub": (lambda m, x, y: m.rsub(x, y, alpha=2) + m.rsub(x, 2.5), [F((3, 4)), F((4,))]),
    # rounding (a zero gradient, still part of the graph) and division modes
    "floor": (lambda m, x: m.floor(x) * x, [F((3, 4), -5.0, 5.0)]),
    "ceil": (lambda m, x: x.ceil() * x, [F((3, 4), -5.0, 5.0)]),
    "round": (lambda m, x: (m.round(x) + m.round(x, decimals=1)) * x, [F((3, 4), -5.0, 5.0)]),
    "trunc": (lambda m, x: (m.trunc(x) + x.fix()) * x, [F((3, 4), -5.0, 5.0)]),
    "div_trunc": (lambda m, x, y: m.div(x, y, rounding_mode="trunc") * x,
                  [F((3, 4), -5.0, 5.0), F((4,), 0.5, 2.0)]),
    "div_floor": (lambda m, x, y: x.div(y, rounding_mode="floor") * y,
                  [F((3, 4), -5.0, 5.0), F((4,), 0.5, 2.0)]),
    "fmod": (lambda m, x, y: m.fmod(x, y) + m.fmod(x, 1.5), [F((3, 4), -5.0, 5.0),
                                                              F((4,), 0.5, 2.0)]),
    "remainder": (lambda m, x, y: m.remainder(x, y) + x.remainder(-1.5),
                  [F((3, 4), -5.0, 5.0), F((4,), 0.5, 2.0)]),
    # moments (torch's legacy unbiased positional) and reductions
    "var": (lambda m, x: m.var(x, 1, False) + x.var(0, True, True).sum() + m.var(x, False)
            + m.std(x, dim=1, correction=0, keepdim=True).sum(), [F((3, 4))]),
    "var_mean": (lambda m, x: m.var_mean(x, 1)[0] * m.std_mean(x, 1, keepdim=False)[1],
                 [F((3, 4))]),
    "prod": (lambda m, x: m.prod(x) + x.prod(1).sum() + m.prod(x, -1, keepdim=True).sum(),
             [F((3, 4), 0.5, 1.5)]),
    "cumprod": (lambda m, x: m.cumprod(x, 1) + x.cumprod(dim=0), [F((3, 4))]),
    "logcumsumexp": (lambda m, x: m.logcumsumexp(x, -1), [F((3, 4))]),
    "cummax": (lambda m, x: m.cummax(x, 1).values + x.cummin(0)[0], [F((3, 4))]),
    "kthvalue": (lambda m, x: m.kthvalue(x, 2).values.sum() + x.kthvalue(3, 0, True)[0].sum(),
                 [F((3, 4))]),
    "median": (lambda m, x: m.median(x) + x.median(1).values.sum()
               + m.median(x, 0, keepdim=True)[0].sum(), [F((3, 4))]),
    "aminmax": (lambda m, x: m.aminmax(x).max + x.aminmax(dim=1).min.sum(), [F((3, 4))]),
    "nansum": (lambda m, x: m.nansum(m.log(x)) + x.nansum(1).sum(), [F((3, 4), -1.0, 2.0)]),
    # linear algebra
    "addmm": (lambda m, i, a, b: m.addmm(i, a, b, beta=0.5, alpha=2.0),
              [F((4,)), F((3, 2)), F((2, 4))]),
    "baddbmm": (lambda m, i, a, b: i.baddbmm(a, b, alpha=-1.0),
                [F((2, 3, 4)), F((2, 3, 2)), F((2, 2, 4))]),
    "addbmm": (lambda m, i, a, b: m.addbmm(i, a, b, beta=2), [F((3, 4)), F((2, 3, 2)),
                                                               F((2, 2, 4))]),
    "addmv": (lambda m, i, a, v: m.addmv(i, a, v), [F((3,)), F((3, 2)), F((2,))]),
    "addr": (lambda m, i, a, b: i.addr(a, b, beta=0.0), [F((3, 4)), F((3,)), F((4,))]),
    "trace": (lambda m, x: m.trace(x) + x.trace(), [F((3, 4))]),
    "dist": (lambda m, x, y: m.dist(x, y) + x.dist(y, 3) + m.dist(x, y, float("inf")),
             [F((3, 4)), F((4,))]),
    "cdist": (lambda m, x, y: m.cdist(x, y) + m.cdist(x, y, p=1.0), [F((4, 3)), F((5, 3))]),
    "pdist": (lambda m, x: m.pdist(x) + m.nn.functional.pdist(x, 3), [F((5, 3))]),
    "det": (lambda m, x: m.det(x) + m.linalg.det(x) + x.det(), [F((2, 3, 3))]),
    "slogdet": (lambda m, x: m.slogdet(x).logabsdet + m.linalg.slogdet(x)[1] * 2,
                [F((3, 3))]),
    "logdet": (lambda m, x: m.logdet(x @ x.mT + m.eye(3, dtype=m.float64)), [F((3, 3))]),
    "inverse": (lambda m, x: m.inverse(x) + m.linalg.inv(x) + x.inverse(), [F((2, 3, 3))]),
    "solve": (lambda m, a, b: m.linalg.solve(a, b) * 2, [F((3, 3)), F((3, 2))]),
    "solve_vector": (lambda m, a, b: m.linalg.solve(a, b), [F((2, 3, 3)), F((2, 3))]),
    "solve_right": (lambda m, a, b: m.linalg.solve(a, b, left=False), [F((3, 3)), F((2, 3))]),
    # indexing
    "take": (lambda m, x, i: m.take(x, i) + x.take(i), [F((3, 4)), I((2, 5), 12)]),
    "index_fill": (lambda m, x, i: m.index_fill(x, 1, i, -1.0), [F((3, 4)), I((2,), 4)]),
    "index_fill_tensor": (lambda m, x, i, v: x.index_fill(0, i, v * 2),
                          [F((3, 4)), I((2,), 3), F(())]),
    "index_copy": (lambda m, x, s: m.index_copy(x, 0, m.tensor([2, 0]), s),
                   [F((3, 4)), F((2, 4))]),
    "scatter": (lambda m, x, s: m.scatter(x, 0, m.tensor([[1, 0, 2, 1]]), s)
                + x.scatter(1, m.tensor([[0], [3], [1]]), 2.5), [F((3, 4)), F((1, 4))]),
    "scatter_reduce_sum": (lambda m, x, s: m.scatter_reduce(
        x, 0, m.tensor([[1, 0, 2, 1], [1, 1, 0, 0]]), s, "sum"), [F((3, 4)), F((2, 4))]),
    "scatter_reduce_mean": (lambda m, x, s: x.scatter_reduce(
        1, m.tensor([[0, 0], [3, 1], [1, 1]]), s, "mean", include_self=False),
        [F((3, 4)), F((3, 2))]),
    "masked_select": (lambda m, x, k: m.masked_select(x, k) * 2, [F((3, 4)), M((4,))]),
    "masked_scatter": (lambda m, x, k, s: x.masked_scatter(k, s), [F((3, 4)), M((3, 4)),
                                                                   F((12,))]),
    "masked_fill_tensor": (lambda m, x, k, v: m.masked_fill(x, k, v * 3),
                           [F((3, 4)), M((3, 4)), F(())]),
    "rot90": (lambda m, x: m.rot90(x) + x.rot90(2, (1, 0)).sum(), [F((3, 3))]),
    "diag_embed": (lambda m, x: m.diag_embed(x, 1) + x.diag_embed(-1, 0, 2).sum(),
                   [F((2, 3))]),
    "block_diag": (lambda m, a, b, c: m.block_diag(a, b, c), [F((2, 3)), F((3,)), F(())]),
    "unfold": (lambda m, x: x.unfold(1, 2, 1) * x.unfold(-1, 3, 2).sum(), [F((3, 5))]),
}

# torch has no double backward for cdist/pdist (its _cdist_backward/_pdist_backward): first
# order against torch, second order between our engines (test_engines_agree). polygamma(2) +
# polygamma(1) cancels to ~1e-2 where the series' 1e-9 absolute error shows.
OPTIONS = {"cdist": {"order": 1}, "pdist": {"order": 1}, "polygamma": {"atol": 1e-8}}


def _inputs(specs, rng):
    out = []
    for s in specs:
        if isinstance(s, F):
            out.append(("f", rng.uniform(s.low, s.high, s.shape)))
        elif isinstance(s, I):
            out.append(("i", rng.integers(0, s.high, s.shape)))
        elif isinstance(s, M):
            out.append(("b", rng.random(s.shape) < 0.5))
    return out


def _make(m, inputs):
    made = []
    for kind, a in inputs:
        if kind == "f":
            made.append(m.tensor(a, dtype=m.float64, requires_grad=True))
        elif kind == "i":
            made.append(m.tensor(a, dtype=m.int64))
        else:
            made.append(m.tensor(a, dtype=m.bool))
    return made


def _scalar(m, y, weights):
    """A weighted sum of the output (its first element when a tuple), weights fixed."""
    y = y[0] if isinstance(y, tuple) else y
    return (y * m.tensor(weights(tuple(y.shape)), dtype=m.float64)).sum(), y


def _run(m, name, inputs, seed, order=2):
    fn, _ = CASES[name]
    args = _make(m, inputs)
    rng = np.random.default_rng(seed)
    cache: dict = {}

    def weights(shape):
        if shape not in cache:
            cache[shape] = rng.standard_normal(shape)
        return cache[shape]

    s, y = _scalar(m, fn(m, *args), weights)
    xs = [a for a in args if a.requires_grad]
    g = m.autograd.grad(s, xs, create_graph=True, allow_unused=True)
    vs = [np.random.default_rng(seed + 1 + i).standard_normal(tuple(x.shape))
          for i, x in enumerate(xs)]
    terms = [(gi * m.tensor(v, dtype=m.float64)).sum() for gi, v in zip(g, vs)
             if gi is not None and gi.requires_grad]
    g2 = (m.autograd.grad(sum(terms), xs, allow_unused=True) if terms and order > 1
          else [None] * len(xs))

    def arr(t):
        if t is None:
            return None
        if getattr(t, "_is_zerotensor", lambda: False)():  # torch's symbolic zeros
            return np.zeros(tuple(t.shape))
        return np.asarray(t.detach().numpy(), dtype=np.float64)

    return arr(y), [arr(t) for t in g], [arr(t) for t in g2]


def _close(ours, theirs, what, atol=1e-10):
    if theirs is None or ours is None:  # an unused input: zero either way
        other = theirs if ours is None else ours
        assert other is None or np.allclose(other, 0.0), what
        return
    np.testing.assert_allclose(ours, theirs, rtol=1e-8, atol=atol, err_msg=what)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(engine, name):
    torch = pytest.importorskip("torch")
    inputs = _inputs(CASES[name][1], np.random.default_rng(sorted(CASES).index(name)))
    order, atol = OPTIONS.get(name, {}).get("order", 2), OPTIONS.get(name, {}).get("atol", 1e-10)
    ours = _run(engine, name, inputs, 11, order)
    theirs = _run(torch, name, inputs, 11, order)
    _close(ours[0], theirs[0], f"{name}: value", atol)
    for i, (a, b) in enumerate(zip(ours[1], theirs[1])):
        _close(a, b, f"{name}: gradient of input {i}", atol)
    for i, (a, b) in enumerate(zip(ours[2], theirs[2])):
        _close(a, b, f"{name}: second-order gradient of input {i}", atol)


@pytest.mark.parametrize("name", sorted(CASES))
def test_engines_agree(ref, compiled, name):
    inputs = _inputs(CASES[name][1], np.random.default_rng(3))
    a, b = _run(ref, name, inputs, 5), _run(compiled, name, inputs, 5)
    _close(a[0], b[0], f"{name}: value")
    for x, y in zip(a[1] + a[2], b[1] + b[2]):
        _close(x, y, f"{name}: gradients")


def test_rounding_requires_grad_with_zero_gradient(engine):
    x = engine.tensor([1.5, -2.5, float("inf"), float("nan")], requires_grad=True)
    for y in (engine.floor(x), engine.ceil(x), engine.round(x), engine.trunc(x),
              engine.div(x, 2.0, rounding_mode="floor"), engine.round(x, decimals=2)):
        assert y.requires_grad
        (g,) = engine.autograd.grad(y.sum(), x)
        assert g.tolist() == [0.0, 0.0, 0.0, 0.0]
    assert engine.floor(x).tolist()[:3] == [1.0, -3.0, float("inf")]
    assert engine.round(x).tolist()[:2] == [2.0, -2.0]  # half to even
    i = engine.tensor([3, -4])
    assert engine.floor(i).dtype == i.dtype and engine.floor(i).tolist() == [3, -4]


def test_floor_divide_is_div_floor(engine):
    # torch.floor_divide has no derivative at all (backward raises); ours is div's "floor"
    # mode, with its zero gradient
    x = engine.tensor([[3.5, -3.5], [7.0, -0.5]], requires_grad=True)
    y = engine.floor_divide(x, 2.0)
    assert y.tolist() == [[1.0, -2.0], [3.0, -1.0]]
    assert (x // 2.0).tolist() == y.tolist()
    assert engine.autograd.grad(y.sum(), x)[0].tolist() == [[0.0, 0.0], [0.0, 0.0]]
    w = x.detach().clone()
    w.floor_divide_(2.0)
    assert w.tolist() == y.tolist()


def test_var_reads_unbiased_as_torch(engine):
    x = engine.tensor([[1.0, 2.0, 4.0], [0.0, 3.0, 3.0]], dtype=engine.float64)
    a = np.array(x.tolist())
    np.testing.assert_allclose(engine.var(x, 1, False).tolist(), a.var(1))
    np.testing.assert_allclose(engine.var(x, 1, True, True).tolist(),
                               a.var(1, ddof=1, keepdims=True))
    np.testing.assert_allclose(engine.var(x, False).item(), a.var())
    np.testing.assert_allclose(engine.std(x, dim=0, correction=0).tolist(), a.std(0))
    with pytest.raises(RuntimeError, match="both unbiased and correction"):
        engine.var(x, 1, True, correction=0)


def test_bad_arguments_raise_torchs_errors(engine):
    x = engine.ones(3, 4)
    i = engine.tensor([[0, 1, 2, 0]])
    with pytest.raises(RuntimeError, match="div expected rounding_mode to be one of None"):
        engine.div(x, 2.0, rounding_mode="ceil")
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod"):
        engine.scatter_reduce(x, 0, i, x, "max")
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0"):
        engine.scatter_reduce(x, 0, engine.tensor([[5]]), x, "amax")
    with pytest.raises(RuntimeError, match="0-dimensional value tensor"):
        engine.masked_fill(x, x > 0, engine.ones(2))
    with pytest.raises(RuntimeError, match="square matrices"):
        engine.linalg.det(x)
    with pytest.raises(RuntimeError, match="polygamma"):
        engine.polygamma(-1, x)


def test_masked_fill_tensor_value_gets_its_gradient(engine):
    x = engine.zeros(2, 3, requires_grad=True)
    v = engine.tensor(2.0, requires_grad=True)
    mask = engine.tensor([[True, False, True], [False, False, True]])
    y = engine.masked_fill(x, mask, v)
    assert y.tolist() == [[2.0, 0.0, 2.0], [0.0, 0.0, 2.0]]
    gx, gv = engine.autograd.grad(y.sum(), [x, v])
    assert gv.item() == 3.0
    assert gx.tolist() == [[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]


def test_inplace_variants_follow_the_verdicts(engine):
    x = engine.randn(3, 4, dtype=engine.float64, requires_grad=True)
    y = x * 1.0
    expected = engine.addcmul(engine.exp2(y), x, x, value=2)
    y.exp2_().addcmul_(x, x, value=2)
    np.testing.assert_allclose(y.detach().numpy(), expected.detach().numpy())
    (g,) = engine.autograd.grad(y.sum(), x, retain_graph=True)
    np.testing.assert_allclose(g.numpy(), engine.autograd.grad(expected.sum(), x)[0].numpy())
    z = x * 1.0
    with pytest.raises(RuntimeError, match="sinh_\\(\\): cannot run in place"):
        z.sinh_()  # its backward reads the input (Note [In-place ops])
    with engine.no_grad():
        w = x.detach().clone()
        w.sinh_()
    np.testing.assert_allclose(w.numpy(), np.sinh(x.detach().numpy()))


def test_names_are_reachable_on_both_engines(ref, compiled):
    for name in TABLE_NAMES:
        f = getattr(ref, name)
        assert getattr(compiled, name) is f, name
        assert f.__doc__, name
    for namespace in ("special", "linalg"):
        assert getattr(ref, namespace).__all__ == getattr(compiled, namespace).__all__
        for name in getattr(ref, namespace).__all__:
            assert getattr(getattr(ref, namespace), name) is getattr(
                getattr(compiled, namespace), name)
    assert ref.nn.functional.pdist is compiled.nn.functional.pdist is compiled.pdist
    for module in (pointwise, reductions, linalg, scatter):
        for name in module.__all__:
            assert getattr(module, name).__module__ == module.__name__, name


# ---- signatures: torch's (its Python signature, else the one its docstring states) ----------

# Overloaded in torch (the docstring states one form; these are ours, all forms in one).
OVERLOADS = {
    # torch's documented signatures of functions torch defines in Python (*args there)
    "cartesian_prod": "*tensors", "combinations": "input, r=2, with_replacement=False",
    "meshgrid": "*tensors, indexing=None",
    "searchsorted": "sorted_sequence, values, *, out_int32=False, right=False, side=None, "
                    "sorter=None",
    "tensordot": "a, b, dims=2",
    "prod": "input, dim=None, keepdim=False, *, dtype=None",
    "nansum": "input, dim=None, keepdim=False, *, dtype=None",
    "median": "input, dim=None, keepdim=False",
    "nanmedian": "input, dim=None, keepdim=False",
    # no docstring in torch: the native schema's names (self -> input)
    "conv_tbc": "input, weight, bias, pad=0",
    "norm_except_dim": "v, pow=2, dim=0", "_weight_norm": "v, g, dim=0",
    "fill": "input, value", "put": "input, index, source, accumulate=False",
    "index_put": "input, indices, values, accumulate=False",
    "unsafe_split_with_sizes": "input, split_sizes, dim=0",
    "nonzero": "input, *, as_tuple=False",  # torch's has out= before as_tuple (no out here)
    # torch's docstring spaces the default (include_self = True)
    "index_reduce": "input, dim, index, source, reduce, *, include_self=True",
    # torch's Python wrappers take (*args, **kwargs): the documented forms
    "unique": "input, sorted=True, return_inverse=False, return_counts=False, dim=None",
    "lu": "A, pivot=True, get_infos=False",  # torch.functional.lu's documented arguments
    "unique_consecutive": "input, return_inverse=False, return_counts=False, dim=None",
    "scatter": "input, dim, index, src=None, value=None, *, reduce=None",
    "index_fill": "input, dim, index, value",
    "masked_scatter": "input, mask, source",
    "masked_fill": "input, mask, value",
    "clamp_min": "input, min", "clamp_max": "input, max",  # torch: min/max as in clamp
    "qr": "input, some=True",  # torch's docstring spells its out= type
    "rsub": "input, other, *, alpha=1",
    # repeat_interleave(input, repeats, dim=None, *, output_size=None) and (repeats)
    "repeat_interleave": "input, repeats=None, dim=None, *, output_size=None",
    # one function is torch.tile(input, dims) and Tensor.tile(*dims)
    "tile": "input, *dims",
    # var(input, dim=None, *, correction=1, keepdim=False) and the legacy (input, dim,
    # unbiased, keepdim=False), (input, unbiased)
    **{n: "input, dim=None, unbiased=None, keepdim=False, *, correction=1"
       for n in ("var", "std", "var_mean", "std_mean")},
}
CHECKED = sorted(set(TABLE_NAMES) | {"div", "floor", "ceil", "round", "trunc", "fmod",
                                      "remainder", "floor_divide", "masked_fill", "var",
                                      "std", "var_mean", "std_mean"})


def _ours(f):
    parts, star = [], False
    for p in inspect.signature(f).parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            parts.append("*" + p.name)
            star = True
            continue
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if p.name == "out" and p.kind is p.KEYWORD_ONLY:
            continue  # out= is compared with torch's in tests/api/test_out_names.py
        parts.append(p.name if p.default is p.empty else f"{p.name}={p.default!r}")
    return re.sub(r",\s*\*$", "", ", ".join(parts))


def _torchs(f):
    try:
        text = str(inspect.signature(f))[1:-1]
    except (TypeError, ValueError):
        line = (f.__doc__ or "").strip().split("\n")[0]
        text = re.match(r"[\w.]+\((.*?)\)\s*(->.*)?$", line).group(1)
    text = re.sub(r":\s*[\w\[\].]+", "", text)  # annotations
    text = re.sub(r",\s*out(=None)?$", "", text.strip())
    return re.sub(r",\s*\*$", "", text)


@pytest.mark.parametrize("name", CHECKED)
def test_signature_is_torchs(ref, name):
    torch = pytest.importorskip("torch")
    expected = OVERLOADS.get(name) or _torchs(getattr(torch, name))
    assert _ours(getattr(ref, name)) == expected


@pytest.mark.parametrize("path", ["linalg.det", "linalg.slogdet", "linalg.inv", "linalg.solve",
                                  "special.erfinv", "special.gammaln", "special.logit",
                                  "special.polygamma", "special.xlogy"])
def test_namespace_signature_is_torchs(ref, path):
    torch = pytest.importorskip("torch")
    space, name = path.split(".")
    theirs = _torchs(getattr(getattr(torch, space), name)).replace("A, B", "A, B")
    ours = _ours(getattr(getattr(ref, space), name))
    if space == "linalg" and name != "solve":  # torch.linalg names the matrix A
        theirs = theirs.replace("A", "input", 1)
    assert ours == theirs


# Formulas reached under another public name (or internal building blocks), with where.
INTERNAL_FORMULAS = {
    "lstm_cell": "nn.LSTM / nn.LSTMCell", "lstm_cell_backward": "lstm_cell's backward",
    "as_strided_backward": "as_strided's backward",
    "threshold_backward": "relu's backward",
    "rsub_scalar": "rsub / number - tensor",
    "tanh_backward": "tanh's backward", "sigmoid_backward": "sigmoid's backward",
    "softplus_backward": "softplus's backward", "elu_backward": "elu's backward",
    "leaky_relu_backward": "leaky_relu's backward",
    "gelu_backward": "gelu's backward", "log_sigmoid_backward": "logsigmoid's backward",
    "logsigmoid": "nn.functional.logsigmoid",
    "conv2d_grouped": "conv2d(groups > 1)",
    "softmax_backward_data": "softmax's backward",
    "log_softmax_backward_data": "log_softmax's backward",
    "lstm_layer": "nn.LSTM", "lstm_layer_bptt": "lstm_layer's backward",
    "lstm_layer_weight_grads": "lstm_layer's backward",
    "gru_cell": "nn.GRU / nn.GRUCell", "gru_cell_backward": "gru_cell's backward",
    "batch_norm_train": "batch_norm(training=True)",
    "batch_norm_backward": "batch_norm_train's backward",
    "sdpa": "nn.functional.scaled_dot_product_attention",
    "masked_fill_tensor": "masked_fill with a 0-d tensor value",
    "div_trunc": "div(rounding_mode='trunc')", "div_floor": "div(rounding_mode='floor')",
    "lerp_tensor": "lerp with a tensor weight", "median_dim": "median(x, dim)",
    "scatter_value": "scatter with a number", "scatter_reduce_sum": "scatter_reduce 'sum'",
    "scatter_reduce_mean": "scatter_reduce 'mean'", "solve": "linalg.solve",
    "solve_matrix": "linalg.solve(left=False)", "cast": "Tensor.to", "matmul_nd": "matmul",
    "sum_to": "Tensor.sum_to_size", "pow_scalar": "pow with a number", "max_dim": "max(x, dim)",
    "min_dim": "min(x, dim)", "slice": "indexing", "im2col": "nn.functional.unfold",
    "index_tensor": "indexing with integer or bool arrays (x[i, j])",
    "col2im": "nn.functional.fold",
    "qr_square_backward": "linalg.qr's backward", "svd_backward": "linalg.svd's backward",
    "norm2": "norm / linalg.vector_norm with p=2",
    "det_backward": "linalg.det's backward", "lu_backward": "linalg.lu's backward",
    "binary_cross_entropy_with_logits_unreduced": "nn.functional."
                                                  "binary_cross_entropy_with_logits",
}


def test_every_formula_has_a_public_name(ref):
    """Issue 12 item 8: an in-tree formula is ``transgrad.NAME``, a Tensor method or in
    ``nn.functional``/``linalg``, or listed above with the public name that reaches it."""
    public = set(dir(ref)) | set(dir(ref.Tensor)) | set(dir(ref.nn.functional))
    public |= set(ref.linalg.__all__) | set(ref.special.__all__)
    from transgrad import lang

    lang.load_builtin_formulas()
    ops = sorted(lang.REGISTRY)
    assert ops, "no formulas listed"
    missing = [n for n in ops if n not in public and n not in INTERNAL_FORMULAS]
    assert missing == []
