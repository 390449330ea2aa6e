"""In-place ops on both engines: version bumps, history rebased onto the new node, the leaf and
view-of-leaf errors, a saved tensor modified in place (caught at backward, naming the node, the
versions and the formula line), and the translator's in-place verdicts (translator/inplace.py:
exp_/relu_/neg_ safe, sin_ refused, mul_/clamp_ run on a copy)."""

import operator

import numpy as np
import pytest

F64 = "float64"


def arr(t):
    return np.asarray(t.detach())


def leaf(tg, values):
    return tg.tensor(values, dtype=F64, requires_grad=True)


# ---- each op: value, version bump, gradient ---------------------------------------------------

CASES = [  # (method call, out-of-place equivalent, gradient of sum wrt y)
    ("add_", lambda y: y.add_(2.0), lambda a: a + 2.0, lambda a: np.ones_like(a)),
    ("sub_", lambda y: y.sub_(0.5), lambda a: a - 0.5, lambda a: np.ones_like(a)),
    ("mul_", lambda y: y.mul_(3.0), lambda a: a * 3.0, lambda a: 3.0 * np.ones_like(a)),
    ("div_", lambda y: y.div_(4.0), lambda a: a / 4.0, lambda a: 0.25 * np.ones_like(a)),
    ("exp_", lambda y: y.exp_(), np.exp, np.exp),
    ("relu_", lambda y: y.relu_(), lambda a: np.maximum(a, 0), lambda a: (a > 0) * 1.0),
    ("clamp_", lambda y: y.clamp_(-0.5, 0.5), lambda a: np.clip(a, -0.5, 0.5),
     lambda a: ((a >= -0.5) & (a <= 0.5)) * 1.0),
    ("zero_", lambda y: y.zero_(), np.zeros_like, np.zeros_like),
    ("fill_", lambda y: y.fill_(7.0), lambda a: np.full_like(a, 7.0), np.zeros_like),
    ("neg_", lambda y: y.neg_(), np.negative, lambda a: -np.ones_like(a)),
]


@pytest.mark.parametrize("name, call, value, dvalue", CASES, ids=[c[0] for c in CASES])
def test_inplace_op_value_version_and_grad(engine, name, call, value, dvalue):
    tg = engine
    a = np.array([-1.5, -0.25, 0.3, 2.0])
    x = leaf(tg, a)
    y = x * 1.0
    v0 = y._version
    out = call(y)
    assert out is y
    assert y._version == v0 + 1
    np.testing.assert_allclose(arr(y), value(a))
    if name in ("zero_", "fill_"):
        assert y.grad_fn is None or arr(y).sum() == arr(y).sum()
        (y * x).sum().backward()  # zero_/fill_: y no longer depends on x through the old value
        np.testing.assert_allclose(arr(x.grad), value(a))
        return
    assert y.grad_fn is not None
    y.sum().backward()
    np.testing.assert_allclose(arr(x.grad), dvalue(a))


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/="])
def test_augmented_assignment_is_in_place(engine, op):
    tg = engine
    a, b = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 4.0])
    x, w = leaf(tg, a), leaf(tg, b)
    y = x * 1.0
    before = y
    v0 = y._version
    y = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul,
         "/=": operator.itruediv}[op](y, w)
    assert y is before and y._version == v0 + 1
    y.sum().backward()
    gx = {"+=": 1.0, "-=": 1.0, "*=": b, "/=": 1.0 / b}[op] * np.ones(3)
    gw = {"+=": np.ones(3), "-=": -np.ones(3), "*=": a, "/=": -a / b**2}[op]
    np.testing.assert_allclose(arr(x.grad), gx)
    np.testing.assert_allclose(arr(w.grad), gw)


def test_history_is_rebased_onto_the_new_node(engine):
    tg = engine
    x = leaf(tg, [1.0, 2.0])
    y = x * 2.0
    old = y.grad_fn
    y.exp_()
    assert y.grad_fn is not old and y.grad_fn.name() == "ExpBackward0"
    assert y.grad_fn.next_functions[0][0].name() == old.name()
    y.mul_(x)
    assert y.grad_fn.name() == "MulBackward0"


def test_copy_takes_the_sources_history(engine):
    tg = engine
    x = leaf(tg, [1.0, 2.0, 3.0])
    y = tg.zeros(3, dtype=F64)
    y.copy_(x * x)
    assert y.requires_grad
    y.sum().backward()
    np.testing.assert_allclose(arr(x.grad), [2.0, 4.0, 6.0])


def test_setitem_records_and_bumps_version(engine):
    tg = engine
    x, w = leaf(tg, [1.0, 2.0, 3.0, 4.0]), leaf(tg, [10.0, 20.0])
    y = x * 1.0
    v0 = y._version
    y[1:3] = w * 2.0
    assert y._version == v0 + 1
    (y * tg.tensor([1.0, 2.0, 3.0, 4.0], dtype=F64)).sum().backward()
    np.testing.assert_allclose(arr(x.grad), [1.0, 0.0, 0.0, 4.0])
    np.testing.assert_allclose(arr(w.grad), [4.0, 6.0])


def test_no_grad_inplace_on_a_leaf_is_allowed(engine):
    tg = engine
    x = leaf(tg, [1.0, 2.0])
    with tg.no_grad():
        x.mul_(2.0)
        x.sin_()  # unsafe variants run when nothing records
    assert x.is_leaf and x.requires_grad and x._version == 2
    np.testing.assert_allclose(arr(x), np.sin([2.0, 4.0]))


# ---- errors ------------------------------------------------------------------------------

LEAF_TEXT = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_TEXT = ("a view of a leaf Variable that requires grad is being used in an in-place "
                     "operation.")


@pytest.mark.parametrize("call", [lambda x: x.add_(1.0), lambda x: x.exp_(),
                                  lambda x: x.zero_(), lambda x: x.__setitem__(0, 5.0)],
                         ids=["add_", "exp_", "zero_", "setitem"])
def test_leaf_that_requires_grad_is_refused(engine, call):
    x = leaf(engine, [1.0, 2.0])
    with pytest.raises(RuntimeError) as info:
        call(x)
    assert str(info.value) == LEAF_TEXT
    assert x._version == 0


@pytest.mark.parametrize("make", [lambda x: x[0], lambda x: x.view(2, 2), lambda x: x.t(),
                                  lambda x: x[:, 1:]], ids=["select", "view", "t", "slice"])
def test_view_of_a_leaf_that_requires_grad_is_refused(engine, make):
    x = engine.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=F64, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        make(x).mul_(2.0)
    assert str(info.value) == VIEW_OF_LEAF_TEXT


def test_saved_tensor_modified_in_place_is_caught_at_backward(engine):
    tg = engine
    x = leaf(tg, [0.5, 1.0])
    a = x * 1.0
    y = a.sin()           # SinBackward0 saves a
    a.mul_(2.0)           # ... which changes here
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    msg = str(info.value)
    assert "SinBackward0" in msg and "formulas/unary.py:" in msg
    assert "modified by an inplace operation" in msg
    assert "is at version 1; expected version 0" in msg


def test_saved_leaf_modified_under_no_grad_is_caught(engine):
    tg = engine
    x = leaf(tg, [0.5, 1.0])
    y = (x * x).sum()     # MulBackward0 saves x (twice)
    with tg.no_grad():
        x.add_(1.0)
    with pytest.raises(RuntimeError, match=r"MulBackward0.*formulas/binary\.py:\d+") as info:
        y.backward()
    assert "is at version 1; expected version 0" in str(info.value)


def test_reference_message_names_the_saved_variable(ref):
    x = leaf(ref, [0.5, 1.0])
    a = x * 1.0
    y = a.sin()
    a.add_(1.0)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert "saved tensor 'x' (bound at formulas/unary.py:" in str(info.value)


def test_compiled_message_says_what_was_saved(compiled):
    x = leaf(compiled, [0.5, 1.0])
    y = x.sin()
    with compiled.no_grad():
        x.add_(1.0)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    # torch's words (a leaf names no node), then the node that saved it and its formula
    assert str(info.value).startswith(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.DoubleTensor [2]] is at version 1; expected version 0 instead.")
    assert "(needed by SinBackward0 (formulas/unary.py:" in str(info.value)


# ---- the translator's verdicts -----------------------------------------------------------

def test_unsafe_variant_is_refused_while_recording(engine):
    tg = engine
    x = leaf(tg, [0.5, 1.0])
    y = x * 1.0
    with pytest.raises(RuntimeError) as info:
        y.sin_()
    msg = str(info.value)
    assert msg.startswith("sin_(): cannot run in place while autograd records: its backward "
                          "(formulas/unary.py:")
    assert "reads `x`, which sin_ would overwrite (the saved input would be lost). Use the " \
           "out-of-place op instead (y = x.sin()), or run it under no_grad(); a formula of your " \
           "own can ask for a copy with @formula(inplace_saves_copy=True)." in msg
    assert y._version == 0


@pytest.mark.parametrize("name", ["exp", "relu", "neg", "sigmoid", "tanh", "sqrt"])
def test_safe_variants_write_without_a_copy_and_differentiate(engine, name):
    tg = engine
    a = np.array([0.3, 1.2, 2.5])
    x = leaf(tg, a)
    y = x * 1.0
    getattr(y, name + "_")()
    z = getattr(x, name)()
    np.testing.assert_allclose(arr(y), arr(z))
    (g,) = tg.autograd.grad(y.sum(), [x])
    (h,) = tg.autograd.grad(z.sum(), [x])
    np.testing.assert_allclose(arr(g), arr(h))


def test_copy_variant_saves_a_copy(engine):
    tg = engine
    x, w = leaf(tg, [1.0, 2.0]), leaf(tg, [3.0, 5.0])
    y = x * 1.0
    y.mul_(w)           # mul reads x: inplace_saves_copy=True, so the node saved a copy
    y.add_(1.0)         # a later in-place change of y does not invalidate it
    y.sum().backward()
    np.testing.assert_allclose(arr(x.grad), [3.0, 5.0])
    np.testing.assert_allclose(arr(w.grad), [1.0, 2.0])


def test_double_backward_through_inplace(engine):
    tg = engine
    x = leaf(tg, [0.5, 1.5])
    y = x * x
    y.exp_()
    (g,) = tg.autograd.grad(y.sum(), [x], create_graph=True)
    (gg,) = tg.autograd.grad(g.sum(), [x])
    a = np.array([0.5, 1.5])
    np.testing.assert_allclose(arr(g), 2 * a * np.exp(a * a))
    np.testing.assert_allclose(arr(gg), (2 + 4 * a * a) * np.exp(a * a))


def test_inplace_matches_torch(engine):
    torch = pytest.importorskip("torch")
    tg = engine
    a = np.array([[0.3, -1.2, 2.0], [0.7, 0.1, -0.4]])
    w = np.array([1.5, -2.0, 0.5])
    outs = []
    for lib in (tg, torch):
        x = lib.tensor(a, dtype=lib.float64, requires_grad=True)
        v = lib.tensor(w, dtype=lib.float64, requires_grad=True)
        y = x * 2.0
        y.add_(v).mul_(v)
        y[:, 1] = v[:2] * 3.0
        y.clamp_(-5.0, 5.0)
        y[0].exp_()
        (y * y).sum().backward()
        outs.append([np.asarray(t.detach()) for t in (y, x.grad, v.grad)])
    for mine, theirs in zip(*outs):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)


def test_translator_verdicts():
    from transgrad import lang
    from transgrad.translator.frontend import formula_model
    from transgrad.translator.inplace import check_inplace

    lang.load_builtin_formulas()
    kinds = {n: check_inplace(formula_model(lang.REGISTRY[n].fn)).kind
             for n in ("exp", "relu", "neg", "sin", "log", "mul", "clamp", "add")}
    assert kinds == {"exp": "safe", "relu": "safe", "neg": "safe", "sin": "unsafe",
                     "log": "unsafe", "mul": "copy", "clamp": "copy", "add": "safe"}
    v = check_inplace(formula_model(lang.REGISTRY["relu"].fn))
    assert v.reason.startswith("its backward (formulas/unary.py:") and v.reason.endswith(
        "reads only the output")


def test_translator_cli_reports_verdicts():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-m", "translator", "check", "--inplace", "-q",
                          "formulas/unary.py"], cwd=root, capture_output=True, text=True,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert "exp_: safe: its backward (formulas/unary.py:" in out.stdout
    assert "sin_: unsafe: its backward (formulas/unary.py:" in out.stdout
    assert "clamp_: copy: its backward (formulas/unary.py:" in out.stdout
