"""Scenarios of #11 run on both engines and on torch 2.13 (where installed), each the same code.

Checks torch makes that were missing, with torch's error texts: detach_() of a tensor a node
saved (caught at backward), detach_() of a view, a post-accumulate hook returning a value,
in-place on a view of a leaf that requires grad (the view made before requires_grad_()),
ctx.mark_dirty on a non-input (a warning) and on a view of such a leaf; the x.data setter.

Where the engines disagreed, they now agree with torch: a hook returning a gradient of another
shape (leaf and non-leaf; torch's "has changed the size of value"), bool and int64
grad_outputs (cast to the output's dtype), a non-contiguous gradient, in-place accumulation
into a user-assigned .grad that is a view, assignment into the gradient of an expanded (sum)
backward, and a Function output marked dirty and saved being freed."""

import gc
import weakref

import numpy as np
import pytest

DETACHED = r"Trying to use a saved tensor that has been detached in-place, i\.e\. with"
VIEW_DETACH = r"Can't detach views in-place\. Use detach\(\) instead\."
POST_ACC = "Tensor post accumulate grad hooks should return None."
VIEW_OF_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place"
SIZE_CHANGED = "has changed the size of value"


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


# ---- engine parity ---------------------------------------------------------------------------

def _hook_shape(lib, T):
    x = T([1.0, 2.0, 3.0], requires_grad=True)
    x.register_hook(lambda g: g[:2])
    with pytest.raises(RuntimeError, match=SIZE_CHANGED):
        (x * 2).sum().backward()
    x2 = T([1.0, 2.0, 3.0], requires_grad=True)
    y = x2 * 2
    y.register_hook(lambda g: g.sum())
    with pytest.raises(RuntimeError, match=SIZE_CHANGED):
        (y * 2).sum().backward()


def _integral_grad_outputs(lib, T):
    x = T([1.0, 2.0], requires_grad=True)
    y = x * 2
    (g,) = lib.autograd.grad(y, x, lib.tensor([1, 3]), retain_graph=True)
    assert g.tolist() == [2.0, 6.0] and g.dtype == x.dtype
    (g,) = lib.autograd.grad(y, x, lib.tensor([True, False]))
    assert g.tolist() == [2.0, 0.0] and g.dtype == x.dtype


def _odd_strides(lib, T):
    x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    g = T([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]).t()  # transposed: not contiguous
    (x * 2).backward(g)
    assert x.grad.tolist() == [[2.0, 6.0, 10.0], [4.0, 8.0, 12.0]]
    x.grad = None
    (x * 2).backward(T([7.0, 8.0, 9.0]).expand(2, 3))  # stride 0
    assert x.grad.tolist() == [[14.0, 16.0, 18.0], [14.0, 16.0, 18.0]]


def _grad_view(lib, T):
    x = T([1.0, 2.0], requires_grad=True)
    buf = T([0.0, 0.0, 0.0, 0.0])
    x.grad = buf[:2]
    (x * 3).sum().backward()
    (x * 1).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0] and buf.tolist() == [4.0, 4.0, 0.0, 0.0]


def _expanded_grad(lib, T):
    x = T([1.0, 2.0, 3.0], requires_grad=True)
    x.sum().backward()  # sum's backward expands the scalar grad
    x.grad[0] = 5.0
    x.grad.mul_(2)
    assert x.grad.tolist() == [10.0, 2.0, 2.0]


def _dirty_saved_freed(lib, T):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            t.mul_(2)
            ctx.mark_dirty(t)
            ctx.save_for_backward(t)
            return t

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return g * 2

    x = T([1.0, 2.0], requires_grad=True)
    z = Double.apply(x * 1)
    gone = weakref.ref(z)
    z.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    del z
    gc.collect()
    assert gone() is None


SCENARIOS = [_detach_saved, _view_detach, _post_acc, _view_of_leaf, _mark_dirty, _data_setter,
             _hook_shape, _integral_grad_outputs, _odd_strides, _grad_view, _expanded_grad,
             _dirty_saved_freed]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__.strip("_"))
def test_check(engine, scenario):
    scenario(*_ours(engine))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__.strip("_"))
def test_torch_agrees(scenario):
    scenario(*_torch())
