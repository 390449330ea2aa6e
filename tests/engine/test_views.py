"""Views on both engines: they share storage and the version counter with their base; an
in-place op on a view gives correct gradients through the view and its base (Note [In-place on
views] in transgrad/_api/views.py, compared with torch); outputs of multi-view functions
(split, chunk, unbind) refuse in-place changes while autograd records."""

import numpy as np
import pytest

F64 = "float64"

VIEWS = {
    "view": lambda x: x.view(3, 4),
    "reshape": lambda x: x.reshape(2, 6),
    "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.permute(1, 0),
    "t": lambda x: x.t(),
    "expand": lambda x: x[:1].expand(3, 6),
    "slice": lambda x: x[:, 1:5:2],
    "select": lambda x: x[1],
    "select_fn": lambda x: x.select(1, 2),
    "narrow": lambda x: x.narrow(1, 2, 3),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "squeeze": lambda x: x[:1].squeeze(0),
    "flatten": lambda x: x.flatten(),
    "diagonal": lambda x: x.diagonal(),
    "diagonal_offset": lambda x: x.diagonal(2),
}


def arr(t):
    return np.asarray(t.detach())


def base(tg, requires_grad=False):
    return tg.tensor(np.arange(12.0).reshape(2, 6), dtype=F64, requires_grad=requires_grad)


@pytest.mark.parametrize("name", list(VIEWS))
def test_views_share_storage_and_version(engine, name):
    tg = engine
    x = base(tg)
    v = VIEWS[name](x)
    assert v._is_view and v._base is x
    assert v._version == x._version == 0
    with tg.no_grad():
        x.add_(1.0)  # a write through the base is seen by the view ...
    assert v._version == 1
    np.testing.assert_array_equal(arr(v), arr(VIEWS[name](x)))
    if name != "expand":
        with tg.no_grad():
            v.mul_(2.0)  # ... and a write through the view by the base
        assert x._version == 2
        np.testing.assert_array_equal(arr(v), arr(VIEWS[name](x)))


def test_reshape_copies_when_strides_do_not_allow_a_view(engine):
    x = base(engine)
    y = x.t().reshape(12)
    assert not y._is_view
    assert not y._shares_storage(x)


def test_view_of_a_view_has_the_root_as_base(engine):
    x = base(engine)
    v = x[1][2:5].unsqueeze(0)
    assert v._base is x


INPLACE_ON_VIEW = {
    "select_mul": lambda y, w: y[1].mul_(w[:6]),
    "slice_exp": lambda y, w: y[:, 2:4].exp_(),
    "transpose_add": lambda y, w: y.t().add_(w.view(6, 2)),
    "view_of_view": lambda y, w: y[0][1:4].mul_(w[:3]),
    "reshape_setitem": lambda y, w: y.view(3, 4).__setitem__((slice(None), 1), w[:3] * 2.0),
    "unsqueeze_relu": lambda y, w: y.unsqueeze(0)[0, 1].relu_(),
    "permute_copy": lambda y, w: y.permute(1, 0)[2].copy_(w[:2]),
    "narrow_zero": lambda y, w: y.narrow(1, 0, 2).zero_(),
    "diagonal_mul": lambda y, w: y.diagonal(1).mul_(w[:2]),
    "diagonal_of_view": lambda y, w: y.view(3, 4).diagonal(-1, 1, 0).exp_(),
}


def run_program(lib, name, a, b):
    x = lib.tensor(a, dtype=lib.float64, requires_grad=True)
    w = lib.tensor(b, dtype=lib.float64, requires_grad=True)
    y = x * 1.5 - 0.5
    row = y[0]              # a view taken before the change: its history is refreshed
    INPLACE_ON_VIEW[name](y, w)
    loss = (y * y).sum() + (row * 3.0).sum()
    loss.backward()
    return [np.asarray(t.detach()) for t in (y, row, x.grad, w.grad if w.grad is not None
                                               else lib.zeros(12, dtype=lib.float64))]


@pytest.mark.parametrize("name", list(INPLACE_ON_VIEW))
def test_inplace_on_view_matches_torch(engine, name):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 6)), rng.normal(size=12)
    mine = run_program(engine, name, a, b)
    theirs = run_program(torch, name, a, b)
    for m, t in zip(mine, theirs):
        np.testing.assert_allclose(m, t, rtol=1e-12, atol=1e-12)


def test_inplace_on_view_rebases_base_and_view(engine):
    tg = engine
    x = base(tg, requires_grad=True)
    y = x * 2.0
    v = y[0]
    v.mul_(3.0)
    assert y.grad_fn.name() == "WhereBackward0"   # base_new = where(view mask, new, base)
    assert v.grad_fn.name() == "SelectBackward0"  # replayed from the new base
    y.sum().backward()
    np.testing.assert_allclose(arr(x.grad), [[6.0] * 6, [2.0] * 6])


def test_view_of_leaf_without_grad_gets_history_from_operand(engine):
    tg = engine
    buf = tg.zeros(2, 3, dtype=F64)
    w = tg.tensor([1.0, 2.0, 3.0], dtype=F64, requires_grad=True)
    buf[1].add_(w * w)
    assert buf.requires_grad and buf[1].requires_grad
    buf.sum().backward()
    np.testing.assert_allclose(arr(w.grad), [2.0, 4.0, 6.0])


def test_double_backward_through_inplace_on_view(engine):
    tg = engine
    x = tg.tensor([0.5, 1.0, 1.5], dtype=F64, requires_grad=True)
    y = x * x
    y[1:].exp_()
    (g,) = tg.autograd.grad(y.sum(), [x], create_graph=True)
    (gg,) = tg.autograd.grad(g.sum(), [x])
    a = np.array([0.5, 1.0, 1.5])
    np.testing.assert_allclose(arr(g), [2 * a[0]] + list(2 * a[1:] * np.exp(a[1:] ** 2)))
    np.testing.assert_allclose(arr(gg), [2.0] + list((2 + 4 * a[1:] ** 2) * np.exp(a[1:] ** 2)))


def test_expanded_view_refuses_inplace_while_recording(engine):
    tg = engine
    w = tg.tensor([1.0], dtype=F64, requires_grad=True)
    y = (w * 1.0).expand(3)
    with pytest.raises(RuntimeError) as info:
        y.add_(1.0)
    assert str(info.value) == (
        "unsupported operation: more than one element of the written-to tensor refers to a "
        "single memory location (an expanded view). Please clone() the tensor before performing "
        "the operation.")


@pytest.mark.parametrize("fn, make", [
    ("split", lambda y: y.split(2)),
    ("chunk", lambda y: y.chunk(3)),
    ("unbind", lambda y: y.unbind(0)),
])
def test_multi_view_outputs_refuse_inplace(engine, fn, make):
    tg = engine
    x = tg.tensor(np.arange(6.0).reshape(3, 2), dtype=F64, requires_grad=True)
    parts = make(x * 1.0)
    with pytest.raises(RuntimeError) as info:
        parts[1].mul_(2.0)
    # torch's words first (code matches on them), the function that made the view after
    node = {"split": "Split", "chunk": "Split", "unbind": "Unbind"}[fn]
    torch_words = (f"Output 1 of {node} is a view and is being modified inplace. This view is "
                   "the output of a function that returns multiple views. Such functions do not "
                   "allow the output views to be modified inplace. You should replace the "
                   "inplace operation by an out-of-place one")
    assert str(info.value).startswith(torch_words)
    assert f"the view came from {fn}()" in str(info.value)
    try:
        import torch
    except ImportError:
        pass
    else:  # the words are torch 2.13's own
        with pytest.raises(RuntimeError) as theirs:
            make(torch.ones(3, 2, dtype=torch.float64, requires_grad=True) * 1.0)[1].mul_(2.0)
        assert str(theirs.value).startswith(torch_words)
    view_of_part = parts[0][:1]   # views of such outputs too
    with pytest.raises(RuntimeError, match=f"Output 0 of {node} is a view"):
        view_of_part.add_(1.0)
    parts[1].clone().mul_(2.0)    # the suggested fix
    with tg.no_grad():
        parts[1].mul_(2.0)        # and nothing records: allowed


def rebased_outcomes(tg, make, change):
    """Backward through output 0 of a multi-view function after ``change`` wrote into its base
    (or into another view of the base): the error's first sentence, or the gradient; then the
    base's own gradient, which still flows."""
    x = tg.tensor(np.arange(6.0).reshape(3, 2), dtype=tg.float64, requires_grad=True)
    y = x * 1.0
    parts = make(y)
    change(y)
    try:
        (parts[0].sum() * 2.0).backward()
        first = x.grad.tolist()
    except RuntimeError as e:
        first = str(e).split(". ")[0]
    x.grad = None
    y.sum().backward()
    return first, x.grad.tolist()


@pytest.mark.parametrize("fn, make", [
    ("split", lambda y: y.split(2)),
    ("chunk", lambda y: y.chunk(3)),
    ("unbind", lambda y: y.unbind(0)),
])
@pytest.mark.parametrize("change", ["base", "another view"])
def test_multi_view_output_refuses_backward_after_its_base_changed(engine, fn, make, change):
    """Note [A multi-view output whose base changed]: torch's error, the base unaffected."""
    do = (lambda y: y.mul_(2.0)) if change == "base" else (lambda y: y[2].add_(1.0))
    got = rebased_outcomes(engine, make, do)
    node = {"split": "Split", "chunk": "Split", "unbind": "Unbind"}[fn]
    assert got[0] == (f"Output 0 of {node} is a view and its base or another view of its base "
                      "has been modified inplace")
    torch = pytest.importorskip("torch")
    assert got == rebased_outcomes(torch, make, do)


def test_views_made_under_no_grad_write_through(engine):
    tg = engine
    x = tg.zeros(2, 2, dtype=F64)
    with tg.no_grad():
        x[0].fill_(1.0)
        x.t()[1].add_(2.0)
    np.testing.assert_array_equal(arr(x), [[1.0, 3.0], [0.0, 2.0]])
    assert x._version == 2


def test_diagonal_matches_torch_and_gradchecks(engine):
    torch = pytest.importorskip("torch")
    tg = engine
    a = np.arange(24.0).reshape(2, 3, 4)
    for args in [(), (1,), (-1, 2, 0), (0, -1, -2), (5,)]:
        mine = tg.tensor(a, dtype=F64).diagonal(*args)
        theirs = torch.tensor(a).diagonal(*args)
        assert tuple(mine.shape) == tuple(theirs.shape)
        np.testing.assert_array_equal(arr(mine), theirs.detach().numpy())
    x = tg.tensor(np.random.default_rng(1).normal(size=(3, 4)), dtype=F64, requires_grad=True)
    assert tg.autograd.gradcheck(lambda t: t.diagonal(1) * 2.0, (x,))
    assert tg.autograd.gradgradcheck(lambda t: (t.diagonal(-1) ** 2), (x,))


def test_inplace_on_base_refreshes_existing_views(engine):
    torch = pytest.importorskip("torch")
    a = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    results = []
    for lib in (engine, torch):
        x = lib.tensor(a, dtype=lib.float64, requires_grad=True)
        y = x * 2.0
        col = y.t()[1]            # a view made before the base changes
        flat = y.view(6)
        y.mul_(x)                 # in place on the base
        y[0, 0] = 9.0             # and through an index of it
        loss = (col * col).sum() + (flat * 3.0).sum() + y.sum()
        loss.backward()
        results.append([np.asarray(t.detach()) for t in (col, flat, x.grad)])
    for m, t in zip(*results):
        np.testing.assert_allclose(m, t, rtol=1e-12)
