"""Every shipped formula, on every engine, on its ``@samples``: gradcheck and gradgradcheck in
float64 (one test id per formula per engine, e.g. ``test_gradcheck[reference-sin]``).

Samples on ties (``T(..., levels=n)``) are not finite-differenced: they are compared with torch
and checked by test_formula_edges.py. Formulas in ``NOT_DIFFERENTIABLE`` (comparisons, logic,
creation) are instead checked to give outputs that do not require grad. A float32 run checks
that outputs and gradients stay float32.
"""

import numpy as np
import pytest
from formula_samples import (
    NOT_DIFFERENTIABLE,
    engine_call,
    is_floating,
    on_ties,
    sample_function,
    sample_outputs,
    shipped_formulas,
)

FORMULAS = shipped_formulas()
NAMES = sorted(FORMULAS)
CONTRACT = [
    "neg", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan",
    "tanh", "sigmoid", "relu", "abs", "sign", "erf", "pow_scalar", "clamp", "cast", "add", "sub",
    "mul", "div", "pow", "maximum", "minimum", "where", "eq", "ne", "lt", "le", "gt", "ge", "sum",
    "mean", "amax", "amin", "logsumexp", "softmax", "log_softmax", "sum_to", "max_dim", "min_dim",
    "reshape", "expand", "permute", "transpose", "unsqueeze", "squeeze", "contiguous", "clone",
    "cat", "stack", "slice", "select", "index_select", "gather", "index_add", "scatter_add",
    "slice_scatter", "select_scatter", "matmul", "matmul_nd",
]


def _outputs(out):
    return out if isinstance(out, tuple) else (out,)


def test_every_formula_has_samples():
    missing = [n for n, d in FORMULAS.items() if not d.samples]
    assert not missing, f"formulas without @samples: {missing}"


def test_the_contract_ops_are_shipped():
    assert [n for n in CONTRACT if n not in FORMULAS] == []


@pytest.mark.parametrize("name", NAMES)
def test_gradcheck(engine, name):
    for i in range(len(FORMULAS[name].samples)):
        call = engine_call(engine, name, i)
        out = _outputs(sample_outputs(engine, name, call))
        if name in NOT_DIFFERENTIABLE or not call.slots:
            assert not any(o.requires_grad for o in out), f"{name}: output requires grad"
            continue
        assert any(o.requires_grad for o in out if is_floating(o)), f"{name}: no grad recorded"
        if on_ties(FORMULAS[name].samples[i]):  # no finite differences at ties: test_formula_edges
            continue
        fn, leaves = sample_function(engine, name, i, call), tuple(call.leaves())
        assert engine.autograd.gradcheck(fn, leaves), f"{name} sample {i}: gradcheck"
        assert engine.autograd.gradgradcheck(fn, leaves), f"{name} sample {i}: gradgradcheck"


@pytest.mark.parametrize("name", NAMES)
def test_float32_stays_float32(engine, name):
    call = engine_call(engine, name, 0, dtype=np.float32)
    out = [o for o in _outputs(sample_outputs(engine, name, call)) if is_floating(o)]
    if name in ("cast", "zeros"):  # the dtype is an argument
        return
    assert all(str(o.dtype).endswith("float32") for o in out), [str(o.dtype) for o in out]
    out = [o for o in out if o.requires_grad]
    if not out:
        return
    ones = [engine.tensor(np.ones(o.shape, np.float32)) for o in out]
    grads = engine.autograd.grad(out, call.leaves(), ones, allow_unused=True)
    assert all(g is None or str(g.dtype).endswith("float32") for g in grads)
