"""autograd.Function (custom functions with ctx) and once_differentiable, on both engines."""

import numpy as np
import pytest


def f64(tg, a, requires_grad=True):
    return tg.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def test_function_with_saved_tensors_and_needs_input_grad(engine):
    tg = engine
    seen = {}

    class MulAdd(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, scale):
            ctx.save_for_backward(x, y)
            ctx.scale = scale
            return x * y * scale

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            seen["needs"] = ctx.needs_input_grad
            return g * y * ctx.scale, g * x * ctx.scale, None

    x, y = f64(tg, [1.0, 2.0]), f64(tg, [3.0, 4.0], requires_grad=False)
    out = MulAdd.apply(x, y, 2.0)
    assert out.grad_fn.name() == "MulAddBackward"
    out.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), [6.0, 8.0])
    assert seen["needs"] == (True, False, False)
    assert tg.autograd.gradcheck(lambda a, b: MulAdd.apply(a, b, 2.0),
                                 (f64(tg, [0.3]), f64(tg, [0.7])))


def test_function_saving_its_output_double_backward(engine):
    tg = engine

    class Exp(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    x = f64(tg, [0.5, 1.0])
    (g,) = tg.autograd.grad(Exp.apply(x).sum(), x, create_graph=True)
    (g2,) = tg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g2.detach().numpy(), np.exp([0.5, 1.0]))


def test_function_wrong_gradient_count(engine):
    tg = engine

    class Bad(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
        Bad.apply(f64(tg, [1.0]), f64(tg, [1.0])).sum().backward()


def test_function_wrong_gradient_shape(engine):
    tg = engine

    class Bad(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return tg.ones(5, dtype=tg.float64)

    with pytest.raises(RuntimeError, match=r"invalid gradient at index 0\W+got shape \(5,\) "
                                           r"but .*\(2,\)"):
        Bad.apply(f64(tg, [1.0, 2.0])).sum().backward()


def test_mark_non_differentiable_and_materialize_grads(engine):
    tg = engine
    got = []

    class SortLike(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = tg.tensor([1, 0])
            ctx.mark_non_differentiable(idx)
            return x * 1, idx

        @staticmethod
        def backward(ctx, g, g_idx):
            got.append(g_idx)
            return g

    x = f64(tg, [1.0, 2.0])
    y, idx = SortLike.apply(x)
    assert not idx.requires_grad and y.requires_grad
    y.sum().backward()
    assert got[0] is not None and np.all(got[0].detach().numpy() == 0)

    class NoMaterialize(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, ga, gb):
            got.append((ga, gb))
            return ga * 1 if gb is None else ga + gb * 2

    a, b = NoMaterialize.apply(x)
    a.sum().backward()
    assert got[-1][1] is None


def test_mark_dirty_rebases_history(engine):
    tg = engine

    class MulTwoInPlace(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            np.asarray(x)[...] *= 2
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = f64(tg, [1.0, 2.0])
    h = x * 1
    v = h._version
    out = MulTwoInPlace.apply(h)
    assert out is h and h._version > v and h.grad_fn.name() == "MulTwoInPlaceBackward"
    h.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), [2.0, 2.0])
    with pytest.raises(RuntimeError, match="leaf Variable"):
        MulTwoInPlace.apply(f64(tg, [1.0]))


def test_once_differentiable_function(engine):
    tg = engine

    class Sin(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        @tg.autograd.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            assert not tg.is_grad_enabled()
            return g * x.cos()

    x = f64(tg, [0.5])
    (g,) = tg.autograd.grad(Sin.apply(x).sum(), x, create_graph=True)
    assert g.grad_fn is None  # as torch's: the received grad does not require grad
    seed = tg.ones((), dtype=tg.float64, requires_grad=True)
    (g,) = tg.autograd.grad(Sin.apply(x).sum(), x, seed, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), np.cos([0.5]))
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was "
                                           "marked with @.*once_differentiable"):
        g.sum().backward()


def test_function_saved_tensor_version_check(engine):
    tg = engine

    class Square(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * g * x

    x = f64(tg, [1.0])
    h = x * 1
    y = Square.apply(h)
    with tg.no_grad():
        h.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_function_without_grad_needed_records_nothing(engine):
    tg = engine

    class Id(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    assert Id.apply(f64(tg, [1.0], requires_grad=False)).grad_fn is None
    with tg.no_grad():
        assert Id.apply(f64(tg, [1.0])).grad_fn is None


def test_function_error_in_backward_keeps_its_type(engine):
    tg = engine

    class Raises(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("custom failure in backward")

    y = Raises.apply(f64(tg, [1.0])).sum()
    with pytest.raises(ValueError, match="custom failure in backward"):
        y.backward()


def test_function_saved_tensors_after_backward_without_retain_graph(engine):
    tg = engine
    holder = {}

    class Keep(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            holder["ctx"] = ctx
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2

    x = f64(tg, [1.0])
    y = Keep.apply(x * 1).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    with pytest.raises(RuntimeError, match="second time|no longer available"):
        _ = holder["ctx"].saved_tensors


def test_function_needs_input_grad_with_non_tensors_and_none_saved(engine):
    tg = engine
    seen = {}

    class Scale(tg.autograd.Function):
        @staticmethod
        def forward(ctx, k, x, y, flag):
            ctx.save_for_backward(x, None, y)
            ctx.k = k
            return x * k + y

        @staticmethod
        def backward(ctx, g):
            x, none, y = ctx.saved_tensors
            seen["needs"], seen["none"] = ctx.needs_input_grad, none
            return None, g * ctx.k, None, None

    x, y = f64(tg, [1.0, 2.0]), f64(tg, [3.0, 4.0], requires_grad=False)
    Scale.apply(3.0, x, y, True).sum().backward()
    assert seen == {"needs": (False, True, False, False), "none": None}
    np.testing.assert_allclose(x.grad.detach().numpy(), [3.0, 3.0])


def test_function_materializes_the_grad_of_an_unused_output(engine):
    tg = engine
    got = []

    class Two(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            got.append((ga.detach().numpy().copy(), gb.detach().numpy().copy()))
            return ga * 2 + gb * 3

    x = f64(tg, [1.0, 2.0])
    a, b = Two.apply(x)
    assert a.grad_fn is b.grad_fn
    b.sum().backward()
    np.testing.assert_array_equal(got[0][0], [0.0, 0.0])  # a's grad: zeros, shaped like a
    np.testing.assert_allclose(x.grad.detach().numpy(), [3.0, 3.0])


def test_function_gradgradcheck_with_saved_input(engine):
    tg = engine

    class Cube(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x * x

    assert tg.autograd.gradcheck(Cube.apply, (f64(tg, [0.3, -0.7]),))
    assert tg.autograd.gradgradcheck(Cube.apply, (f64(tg, [0.3, -0.7]),))


def test_function_grad_fn_location_is_its_backward(engine):
    tg = engine

    class Loc(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    node = Loc.apply(f64(tg, [1.0])).grad_fn
    assert node.name() == "LocBackward"
    if engine.__name__ == "transgrad":  # the compiled node knows its source line
        assert node.location is not None and node.location.startswith(__file__)
