"""Differential tests: the compiled engine against the reference engine, float64.

Every shipped formula on each of its samples (value, first-order VJP and second-order VJP), and
hypothesis-drawn random programs of elementwise ops, broadcasting and reductions (value and
gradients). The two engines run the same formulas, translated or not, so they must agree to
rounding: 1e-12 relative (plus 1e-12 absolute for values near zero).
"""

import numpy as np
import pytest
from formula_samples import (
    NOT_DIFFERENTIABLE,
    engine_call,
    is_floating,
    sample_function,
    shipped_formulas,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FORMULAS = shipped_formulas()
NAMES = sorted(FORMULAS)
TOL = {"rtol": 1e-12, "atol": 1e-12}


def _np(t):
    return None if t is None else np.asarray(t.detach().numpy() if hasattr(t, "detach") else t)


def _floating(out):
    return [o for o in (out if isinstance(out, tuple) else (out,)) if is_floating(o)]


def _run(engine, name, index):
    """Outputs, the VJP of a fixed cotangent and the VJP of that VJP, as numpy arrays."""
    call = engine_call(engine, name, index)
    leaves = call.leaves()
    # through the same input wrappers as gradcheck (Note [Hermitian inputs in samples])
    outs = _floating(sample_function(engine, name, index, call)(*leaves) if leaves else call())
    result = {"values": [_np(o) for o in outs]}
    outs = [o for o in outs if o.requires_grad]
    if name in NOT_DIFFERENTIABLE or not call.slots or not outs:
        return result
    rng = np.random.default_rng(7)
    cot = [engine.tensor(rng.standard_normal(o.shape)) for o in outs]
    grads = engine.autograd.grad(outs, leaves, cot, create_graph=True, allow_unused=True)
    result["grads"] = [_np(g) for g in grads]
    used = [(g, x) for g, x in zip(grads, leaves) if g is not None and g.requires_grad]
    if used:
        cot2 = [engine.tensor(rng.standard_normal(g.shape)) for g, _ in used]
        gg = engine.autograd.grad([g for g, _ in used], [x for _, x in used], cot2,
                                  allow_unused=True)
        result["gradgrads"] = [_np(g) for g in gg]
    return result


def _assert_same(a, b, what):
    assert a.keys() == b.keys(), what
    for key in a:
        assert len(a[key]) == len(b[key]), f"{what}: {key}"
        for i, (x, y) in enumerate(zip(a[key], b[key])):
            if x is None or y is None:
                assert x is None and y is None or not np.any(x if x is not None else y), \
                    f"{what}: {key}[{i}] undefined on one engine only"
                continue
            assert x.shape == y.shape, f"{what}: {key}[{i}] shapes {x.shape} vs {y.shape}"
            np.testing.assert_allclose(x, y, err_msg=f"{what}: {key}[{i}]", **TOL)


@pytest.mark.parametrize("name", NAMES)
def test_formula_samples_agree(ref, compiled, name):
    for i in range(len(FORMULAS[name].samples)):
        _assert_same(_run(ref, name, i), _run(compiled, name, i), f"{name} sample {i}")


# ---------------------------------------------------------------------------------------------
# Random programs: a chain of ops over a few broadcast-compatible leaves.

UNARY = ["sin", "cos", "tanh", "sigmoid", "exp_small", "neg", "softplus_like", "square"]
BINARY = ["add", "sub", "mul", "div_safe", "maximum"]
REDUCE = ["sum", "mean", "amax", "logsumexp"]


def _apply(tg, op, a, b=None, dim=None):
    if op == "exp_small":
        return (a * 0.5).exp()
    if op == "softplus_like":
        return (a.exp() + 1.0).log()
    if op == "square":
        return a * a
    if op == "div_safe":
        return a / (b * b + 1.0)
    if op in BINARY:
        return getattr(tg, op)(a, b)
    if op in REDUCE:
        return getattr(tg, op)(a, dim=dim, keepdim=True)
    return getattr(tg, op)(a)


@st.composite
def programs(draw):
    ndim = draw(st.integers(1, 3))
    full = tuple(draw(st.integers(1, 4)) for _ in range(ndim))
    shapes = []
    for _ in range(draw(st.integers(1, 3))):  # leaves broadcast against ``full``
        keep = draw(st.lists(st.booleans(), min_size=ndim, max_size=ndim))
        shape = tuple(s if k else 1 for s, k in zip(full, keep))
        shapes.append(shape[draw(st.integers(0, ndim - 1)):])
    steps = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["unary", "binary", "reduce"]))
        if kind == "unary":
            steps.append(("unary", draw(st.sampled_from(UNARY)), None))
        elif kind == "binary":
            steps.append(("binary", draw(st.sampled_from(BINARY)),
                          draw(st.integers(0, len(shapes) - 1))))
        else:
            steps.append(("reduce", draw(st.sampled_from(REDUCE)), draw(st.integers(-1, 0))))
    seed = draw(st.integers(0, 2**31 - 1))
    return shapes, steps, seed


def _program(tg, shapes, steps, seed):
    rng = np.random.default_rng(seed)
    leaves = [tg.tensor(rng.uniform(-1.5, 1.5, s), requires_grad=True) for s in shapes]
    y = leaves[0]
    for kind, op, arg in steps:
        if kind == "unary":
            y = _apply(tg, op, y)
        elif kind == "binary":
            y = _apply(tg, op, y, leaves[arg])
        else:
            y = _apply(tg, op, y, dim=arg % y.ndim) if y.ndim else y
    out = (y * y).sum()
    grads = tg.autograd.grad(out, leaves, allow_unused=True)
    return _np(out), [_np(g) for g in grads]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(programs())
def test_random_programs_agree(ref, compiled, program):
    shapes, steps, seed = program
    v_ref, g_ref = _program(ref, shapes, steps, seed)
    v_c, g_c = _program(compiled, shapes, steps, seed)
    np.testing.assert_allclose(v_c, v_ref, **TOL)
    for a, b in zip(g_c, g_ref):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, **TOL)
