"""autograd.graph saved-tensor hooks: pack/unpack on every saved tensor of the reference
engine's formula nodes and Python Functions (first and second order), unpack's type check,
disable_saved_tensors_hooks, save_on_cpu; the compiled engine refuses user hooks clearly."""

import numpy as np
import pytest


def _graph(tg):
    import importlib

    return importlib.import_module(tg.autograd.__name__ + ".graph")


def test_pack_unpack_on_formula_nodes(ref):
    tg = ref
    G = _graph(tg)
    log = []

    def pack(t):
        log.append("pack")
        return t.detach().numpy().copy()  # anything may be packed

    def unpack(a):
        log.append("unpack")
        return tg.from_numpy(a)

    x = tg.tensor(np.array([0.5, 1.0]), requires_grad=True)
    with G.saved_tensors_hooks(pack, unpack):
        y = (x.exp() * x).sum()
    n_pack = log.count("pack")
    assert n_pack >= 2  # exp saves its output, mul both inputs
    y.backward()
    assert log.count("unpack") == n_pack
    e = np.exp([0.5, 1.0])
    np.testing.assert_allclose(x.grad.numpy(), e * np.array([0.5, 1.0]) + e)


def test_unpacked_values_are_used(ref):
    tg = ref
    G = _graph(tg)
    x = tg.tensor(np.array([2.0, 3.0]), requires_grad=True)
    with G.saved_tensors_hooks(lambda t: t, lambda t: t * 10):
        y = (x * x).sum()  # saves x twice; backward reads 10x
    y.backward()
    assert x.grad.tolist() == [40.0, 60.0]  # 2 * 10x: proves backward used the unpacked data


def test_double_backward_through_unpacked(ref):
    tg = ref
    G = _graph(tg)
    x = tg.tensor(np.array([2.0, 3.0]), requires_grad=True)
    with G.saved_tensors_hooks(lambda t: t.detach() * 1, lambda t: t):
        y = (x ** 3).sum()
    (g,) = tg.autograd.grad(y, x, create_graph=True)
    assert g.tolist() == [12.0, 27.0]
    (h,) = tg.autograd.grad(g.sum(), x)
    assert h.tolist() == [12.0, 18.0]  # 6x: the unpacked x still leads to the leaf


def test_hooks_on_python_function(ref):
    tg = ref
    G = _graph(tg)
    log = []

    class Square(tg.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * t

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return 2 * t * g

    x = tg.tensor(np.array([1.5]), requires_grad=True)
    with G.saved_tensors_hooks(lambda t: log.append("p") or t, lambda t: log.append("u") or t):
        y = Square.apply(x)
    y.backward()
    assert log == ["p", "u"] and x.grad.tolist() == [3.0]


def test_unpack_must_return_a_tensor(ref):
    tg = ref
    G = _graph(tg)
    x = tg.tensor(np.array([1.0]), requires_grad=True)
    with G.saved_tensors_hooks(lambda t: t, lambda p: 3):
        y = x.exp()
    with pytest.raises(TypeError, match="Output of saved tensor unpack_hook expected to be a "
                                        "Tensor but got result of type int"):
        y.backward()


def test_disable_saved_tensors_hooks(engine):
    tg = engine
    G = _graph(tg)
    with G.disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with G.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    x = tg.tensor(np.array([1.0]), requires_grad=True)
    with G.save_on_cpu(pin_memory=True):
        y = (x * x).sum()
    y.backward()
    assert x.grad.tolist() == [2.0]


def test_compiled_refuses_user_hooks(compiled):
    G = _graph(compiled)
    with pytest.raises(NotImplementedError, match="not supported by the compiled engine"):
        with G.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass


def test_torch_agrees():
    torch = pytest.importorskip("torch")
    G = torch.autograd.graph
    x = torch.tensor([2.0, 3.0], dtype=torch.float64, requires_grad=True)
    with G.saved_tensors_hooks(lambda t: t, lambda t: t * 10):
        y = (x * x).sum()
    y.backward()
    assert x.grad.tolist() == [40.0, 60.0]
    with G.disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with G.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with G.saved_tensors_hooks(lambda t: t, lambda p: 3):
        y = x.exp()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor"):
        y.sum().backward()
