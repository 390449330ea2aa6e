"""DESIGN §6 errors raised by the compiled engine: Python exceptions with messages naming the
node and its formula's source line, never a crash."""

import re

import numpy as np
import pytest


def f64(tg, data, requires_grad=True):
    return tg.tensor(data, dtype=tg.float64, requires_grad=requires_grad)


def test_backward_twice(compiled):
    tg = compiled
    x = f64(tg, [1.0, 2.0])
    y = (x.sin() * x).sum()
    y.backward()
    with pytest.raises(RuntimeError) as e:
        y.backward()
    msg = str(e.value)
    assert "Trying to backward through the graph a second time" in msg
    assert "retain_graph=True" in msg
    assert re.search(r"Backward0 \(formulas/\w+\.py:\d+\)", msg), msg


def test_non_scalar_backward_without_gradient(compiled):
    tg = compiled
    y = f64(tg, [1.0, 2.0]) * 2
    with pytest.raises(RuntimeError, match=r"implicitly created only for scalar outputs.*\(2,\)"):
        y.backward()


def test_tensors_not_requiring_grad(compiled):
    tg = compiled
    x = f64(tg, [1.0], requires_grad=False)
    with pytest.raises(RuntimeError, match="does not require grad"):
        (x * 2).sum().backward()
    w = f64(tg, [1.0])
    with pytest.raises(RuntimeError, match="does not require grad"):
        tg.autograd.grad((w * 2).sum(), x)


def test_unused_input(compiled):
    tg = compiled
    x, z = f64(tg, [1.0]), f64(tg, [2.0])
    y = (x * 3).sum()
    with pytest.raises(RuntimeError, match="not have been used in the graph.*allow_unused=True"):
        tg.autograd.grad(y, (x, z), retain_graph=True)
    gx, gz = tg.autograd.grad(y, (x, z), allow_unused=True)
    assert gz is None and gx.item() == 3.0


def test_wrong_gradient_shape_for_root(compiled):
    tg = compiled
    y = f64(tg, [1.0, 2.0, 3.0]) * 2
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of "
                                           r"torch.Size\(\[2\]\) and output\[0\] has a shape "
                                           r"of torch.Size\(\[3\]\)"):
        y.backward(tg.ones(2, dtype=tg.float64))


def test_inplace_change_of_saved_tensor_names_node_and_versions(compiled):
    tg = compiled
    x = f64(tg, [1.0, 2.0])
    a = x * 1.0
    y = (a.sin()).sum()  # SinBackward0 saves a
    with tg.no_grad():
        a.mul_(2.0)
    with pytest.raises(RuntimeError) as e:
        y.backward()
    msg = str(e.value)
    assert "modified by an inplace operation" in msg
    assert re.search(r"SinBackward0 \(formulas/unary\.py:\d+\)", msg), msg
    assert "is at version 1; expected version 0" in msg


class _Twice:
    @staticmethod
    def make(tg):
        class Twice(tg.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2, g  # one too many

        return Twice


def test_python_function_wrong_gradient_count(compiled):
    tg = compiled
    Twice = _Twice.make(tg)
    y = Twice.apply(f64(tg, [1.0, 2.0])).sum()
    with pytest.raises(RuntimeError,
                       match=r"TwiceBackward \(.*test_errors\.py:\d+\) returned an incorrect "
                             r"number of gradients \(expected 1, got 2\)"):
        y.backward()


def test_python_function_wrong_gradient_shape(compiled):
    tg = compiled

    class Bad(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return tg.ones(5, dtype=tg.float64)

    y = Bad.apply(f64(tg, [1.0, 2.0])).sum()
    with pytest.raises(RuntimeError,
                       match=r"BadBackward \(.*test_errors\.py:\d+\) returned an invalid "
                             r"gradient at index 0 - got shape \(5,\) but expected shape "
                             r"compatible with \(2,\)"):
        y.backward()


def test_python_function_broadcast_gradient_is_summed(compiled):
    tg = compiled

    class Wide(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return tg.ones(4, 3, dtype=tg.float32)  # broadcast of (3,), other dtype

    x = f64(tg, [1.0, 2.0, 3.0])
    Wide.apply(x).sum().backward()
    assert x.grad.dtype == np.float64
    np.testing.assert_allclose(x.grad.detach().numpy(), [4.0, 4.0, 4.0])


def test_double_backward_through_once_differentiable(compiled):
    tg = compiled

    class Sin(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        @tg.autograd.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos()

    x = f64(tg, [0.5, 1.0])
    seed = tg.ones((), dtype=tg.float64, requires_grad=True)  # a grad that requires grad
    (g,) = tg.autograd.grad(Sin.apply(x).sum(), x, seed, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), np.cos([0.5, 1.0]))
    with pytest.raises(RuntimeError,
                       match=r"differentiate twice.*once_differentiable.*SinBackward"):
        g.sum().backward()  # autograd.grad(g.sum(), x) would not reach the node: torch's edges


def test_error_in_hook_propagates(compiled):
    tg = compiled
    x = f64(tg, [1.0])
    y = x * 2

    def hook(g):
        raise KeyError("from the hook")

    y.register_hook(hook)
    with pytest.raises(KeyError, match="from the hook"):
        y.sum().backward()


def test_hook_changing_shape_is_refused(compiled):
    tg = compiled
    x = f64(tg, [1.0, 2.0])
    y = x * 2
    y.register_hook(lambda g: tg.ones(3, dtype=tg.float64))
    with pytest.raises(RuntimeError, match=r"hook.*shape \(3,\).*\(2,\)"):
        y.sum().backward()


def test_requires_grad_on_integer_tensor(compiled):
    tg = compiled
    with pytest.raises(RuntimeError, match="floating point"):
        tg.tensor([1, 2]).requires_grad_()
    y = f64(tg, [1.0]) * 2
    with pytest.raises(RuntimeError, match="leaf"):
        y.requires_grad = False


def test_detect_anomaly_names_the_node_making_nan(compiled):
    tg = compiled
    x = f64(tg, [0.0, 1.0])
    y = (x.sqrt() * 0.0).sum()  # d sqrt at 0: 0 * inf = nan
    nan_error = pytest.raises(RuntimeError, match=r"Function 'SqrtBackward0' returned nan values "
                                                  r"in its 0th output\. \(function SqrtBackward0 "
                                                  r"\(formulas/unary\.py:\d+\)")
    with tg.autograd.detect_anomaly(), nan_error:
        y.backward(retain_graph=True)
    y.backward()  # outside detect_anomaly: no check
    assert np.isnan(x.grad.detach().numpy()[0])


def test_backward_inputs_of_non_leaf_fills_its_grad(compiled):
    tg = compiled
    x = f64(tg, [1.0, 2.0])
    h = x * 3.0
    (h * h).sum().backward(inputs=[h])
    np.testing.assert_allclose(h.grad.detach().numpy(), [6.0, 12.0])
    assert x.grad is None


def once_differentiable_second_order(tg):
    """torch's once_differentiable (Note [once_differentiable as torch's]): its results are
    constants unless the grads it received require grad; then they have an Error grad_fn that
    raises when a backward reaches it, and a backward to x alone does not reach it."""

    class Double(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        @tg.autograd.function.once_differentiable
        def backward(ctx, g):
            return g * 2

    out = []
    x = tg.tensor([0.5, 1.0], dtype=tg.float64, requires_grad=True)
    (g,) = tg.autograd.grad((Double.apply(x) + x * x).sum(), x, create_graph=True)
    out.append((g.tolist(), tg.autograd.grad(g.sum(), x)[0].tolist()))
    seed = tg.ones((), dtype=tg.float64, requires_grad=True)
    (g,) = tg.autograd.grad((Double.apply(x) + x * x).sum(), x, seed, create_graph=True)
    out.append((g.tolist(), tg.autograd.grad(g.sum(), x, retain_graph=True)[0].tolist()))
    try:
        g.sum().backward()
    except RuntimeError as e:
        out.append(str(e).split(" (")[0])
    return out


def test_once_differentiable_second_order_as_torch(compiled):
    got = once_differentiable_second_order(compiled)
    assert got == [([3.0, 4.0], [2.0, 2.0]), ([3.0, 4.0], [2.0, 2.0]),
                   "trying to differentiate twice a function that was marked with "
                   "@once_differentiable"]
    torch = pytest.importorskip("torch")
    assert got == once_differentiable_second_order(torch)
