"""Hooks on both engines: tensor hooks (which may replace the gradient), post-accumulate-grad
hooks, node pre/post hooks (``grad_fn.register_prehook`` / ``grad_fn.register_hook``),
``retain_grad``, handles that remove hooks, and the warning when reading ``.grad`` of a
non-leaf."""

import warnings

import numpy as np
import pytest

F64 = "float64"
NON_LEAF_TEXT = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead.")


def arr(t):
    return np.asarray(t.detach())


def leaf(tg, values):
    return tg.tensor(values, dtype=F64, requires_grad=True)


def test_tensor_hook_sees_and_replaces_the_grad(engine):
    tg = engine
    x = leaf(tg, [1.0, 2.0])
    h = x * 3.0
    seen = []
    h.register_hook(lambda g: seen.append(arr(g).copy()) or g * 10.0)
    x.register_hook(lambda g: seen.append(arr(g).copy()))  # None: keep the grad
    h.sum().backward()
    np.testing.assert_allclose(seen[0], [1.0, 1.0])
    np.testing.assert_allclose(seen[1], [30.0, 30.0])
    np.testing.assert_allclose(arr(x.grad), [30.0, 30.0])


def test_hook_handle_removes(engine):
    tg = engine
    x = leaf(tg, [1.0])
    handle = x.register_hook(lambda g: g * 2.0)
    handle.remove()
    (x * 1.0).sum().backward()
    np.testing.assert_allclose(arr(x.grad), [1.0])


def test_hook_on_tensor_without_grad_is_refused(engine):
    with pytest.raises(RuntimeError) as info:
        engine.zeros(2).register_hook(lambda g: g)
    assert str(info.value) == "cannot register a hook on a tensor that doesn't require gradient"


def test_post_accumulate_grad_hook_runs_after_grad_is_set(engine):
    tg = engine
    x = leaf(tg, [1.0, 2.0])
    seen = []
    handle = x.register_post_accumulate_grad_hook(lambda t: seen.append(arr(t.grad).copy()))
    (x * x).sum().backward()
    (x * 3.0).sum().backward()
    np.testing.assert_allclose(seen[0], [2.0, 4.0])
    np.testing.assert_allclose(seen[1], [5.0, 7.0])   # accumulated before the hook ran
    handle.remove()
    (x * 1.0).sum().backward()
    assert len(seen) == 2


def test_post_accumulate_grad_hook_may_act_on_the_tensor(engine):
    tg = engine
    x = leaf(tg, [1.0, 2.0])

    def sgd_step(t):  # the optimizer-in-backward idiom
        with tg.no_grad():
            t.sub_(t.grad * 0.5)
        t.grad = None

    x.register_post_accumulate_grad_hook(sgd_step)
    (x * x).sum().backward()
    np.testing.assert_allclose(arr(x), [0.0, 0.0])
    assert x.grad is None


def test_post_accumulate_grad_hook_errors(engine):
    tg = engine
    x = leaf(tg, [1.0])
    with pytest.raises(RuntimeError) as info:
        (x * 2.0).register_post_accumulate_grad_hook(lambda t: None)
    assert str(info.value) == "post accumulate grad hooks cannot be registered on non-leaf tensors"
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        tg.zeros(1).register_post_accumulate_grad_hook(lambda t: None)


def test_node_prehook_and_posthook(engine):
    tg = engine
    x = leaf(tg, [1.0, 2.0])
    w = leaf(tg, [3.0, 4.0])
    y = x * w
    calls = []

    def pre(grad_outputs):
        calls.append(("pre", len(grad_outputs), arr(grad_outputs[0]).tolist()))
        return (grad_outputs[0] * 2.0,)

    def post(grad_inputs, grad_outputs):
        calls.append(("post", len(grad_inputs), arr(grad_outputs[0]).tolist()))
        return (grad_inputs[0], grad_inputs[1] * 0.0)

    y.grad_fn.register_prehook(pre)
    y.grad_fn.register_hook(post)
    y.sum().backward()
    assert calls == [("pre", 1, [1.0, 1.0]), ("post", 2, [2.0, 2.0])]
    np.testing.assert_allclose(arr(x.grad), [6.0, 8.0])   # 2 * w: the pre-hook doubled it
    np.testing.assert_allclose(arr(w.grad), [0.0, 0.0])   # the post-hook zeroed it


def test_node_hooks_returning_none_keep_grads_and_handles_remove(engine):
    tg = engine
    x = leaf(tg, [1.0, 2.0])
    y = x.exp()
    seen = []
    h1 = y.grad_fn.register_prehook(lambda go: seen.append("pre"))
    h2 = y.grad_fn.register_hook(lambda gi, go: seen.append("post"))
    y.sum().backward(retain_graph=True)
    assert seen == ["pre", "post"]
    np.testing.assert_allclose(arr(x.grad), np.exp([1.0, 2.0]))
    h1.remove()
    h2.remove()
    y.sum().backward()
    assert seen == ["pre", "post"]


def test_node_hook_returning_wrong_count_is_an_error(engine):
    tg = engine
    x = leaf(tg, [1.0])
    y = x * x
    y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[1], gi[0]))
    with pytest.raises(RuntimeError, match=r"hook of MulBackward0.* returned 3 gradients, "
                                           r"expected 2"):
        y.sum().backward()


def test_retain_grad_and_non_leaf_grad_warning(engine):
    tg = engine
    x = leaf(tg, [1.0, 2.0])
    h = x * 2.0
    k = h * 3.0
    h.retain_grad()
    k.sum().backward()
    assert h.retains_grad and not k.retains_grad
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(arr(h.grad), [3.0, 3.0])  # retained: no warning
        assert x.grad is not None                          # a leaf: no warning
    with pytest.warns(UserWarning) as record:
        assert k.grad is None
    assert str(record[0].message) == NON_LEAF_TEXT


def test_retain_grad_on_tensor_without_grad_is_refused(engine):
    with pytest.raises(RuntimeError) as info:
        engine.zeros(2).retain_grad()
    assert str(info.value) == "can't retain_grad on Tensor that has requires_grad=False"


def test_hooks_match_torch(engine):
    torch = pytest.importorskip("torch")
    a = np.array([0.5, -1.0, 2.0])
    results = []
    for lib in (engine, torch):
        x = lib.tensor(a, dtype=lib.float64, requires_grad=True)
        y = x.exp()
        z = y * x
        y.register_hook(lambda g: g * 2.0)
        z.grad_fn.register_prehook(lambda go: (go[0] + 1.0,))
        y.retain_grad()
        z.sum().backward()
        results.append([np.asarray(t.detach()) for t in (x.grad, y.grad)])
    for m, t in zip(*results):
        np.testing.assert_allclose(m, t, rtol=1e-12)
