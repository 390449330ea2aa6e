"""Checks torch makes that #11 found missing, on both engines, with torch's error texts:
detach_() of a tensor a node saved (caught at backward), detach_() of a view, a post-accumulate
hook returning a value, in-place on a view of a leaf that requires grad (the view made before
requires_grad_()), ctx.mark_dirty on a non-input (a warning) and on a view of such a leaf; and
the x.data setter. Each scenario runs on torch 2.13 too where it is installed."""

import numpy as np
import pytest

DETACHED = r"Trying to use a saved tensor that has been detached in-place, i\.e\. with"
VIEW_DETACH = r"Can't detach views in-place\. Use detach\(\) instead\."
POST_ACC = "Tensor post accumulate grad hooks should return None."
VIEW_OF_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place"


def _torch():
    torch = pytest.importorskip("torch")
    return torch, lambda v, **k: torch.tensor(v, dtype=torch.float64, **k)


def _ours(tg):
    return tg, lambda v, **k: tg.tensor(np.array(v, dtype=np.float64), **k)


def _detach_saved(lib, tensor):
    x = tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    b = a.sin()  # saves a
    a.detach_()
    with pytest.raises(RuntimeError, match=DETACHED):
        b.sum().backward()
    c = (x * 1).sin()  # no detach_: fine
    c.sum().backward()


def _view_detach(lib, tensor):
    x = tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=VIEW_DETACH):
        (x * 1)[:1].detach_()
    with pytest.raises(RuntimeError, match=VIEW_DETACH):
        tensor([1.0, 2.0])[:1].detach_()  # any view, as torch
    d = (x * 1).detach()
    assert d.detach_() is d  # detach() is not a view
    y = x * 2
    assert y.detach_() is y and y.grad_fn is None and not y.requires_grad


def _post_acc(lib, tensor):
    x = tensor([1.0, 2.0], requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: t * 2)
    with pytest.raises(RuntimeError, match=POST_ACC):
        (x * 2).sum().backward()
    seen = []
    z = tensor([3.0], requires_grad=True)
    z.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (z * 4).sum().backward()
    assert seen == [[4.0]]


def _view_of_leaf(lib, tensor):
    leaf = tensor([1.0, 2.0])
    v = leaf[:1]
    leaf.requires_grad_()
    with pytest.raises(RuntimeError, match=VIEW_OF_LEAF):
        v.mul_(2)
    leaf2 = tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=VIEW_OF_LEAF):
        leaf2[:1].mul_(2)


def _mark_dirty(lib, tensor):
    class NotAnInput(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            out = t * 2
            ctx.mark_dirty(out)
            return out

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Dirty(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            t.mul_(2)
            ctx.mark_dirty(t)
            return t

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="ctx.mark_dirty.. received a tensor that was not an "
                                         "input"):
        y = NotAnInput.apply(x * 1)
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match=VIEW_OF_LEAF):
        Dirty.apply(x[:1])
    z = x * 1
    Dirty.apply(z[:1])  # a view of a non-leaf: fine


def _data_setter(lib, tensor):
    x = tensor([1.0, 2.0], requires_grad=True)
    obj = x
    x.data = tensor([[5.0, 6.0, 7.0]])
    assert x is obj and x.requires_grad and x.is_leaf and tuple(x.shape) == (1, 3)
    assert x.tolist() == [[5.0, 6.0, 7.0]]
    (x * x).sum().backward()
    assert x.grad.tolist() == [[10.0, 12.0, 14.0]]
    w = tensor([1.0, 2.0])
    w.data = tensor([3.0])
    assert w.tolist() == [3.0] and not w.requires_grad


SCENARIOS = [_detach_saved, _view_detach, _post_acc, _view_of_leaf, _mark_dirty, _data_setter]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__.strip("_"))
def test_check(engine, scenario):
    scenario(*_ours(engine))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__.strip("_"))
def test_torch_agrees(scenario):
    scenario(*_torch())
