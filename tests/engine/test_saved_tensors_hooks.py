"""autograd.graph saved-tensor hooks on both engines: pack/unpack on every saved tensor of the
formula nodes (generated C++ nodes on the compiled engine) and Python Functions (first and second
order), unpack's type check, no in-place check on packed tensors, disable_saved_tensors_hooks,
save_on_cpu, allow_mutation_on_saved_tensors; torch agrees on each."""

import numpy as np
import pytest


def _graph(tg):
    import importlib

    return importlib.import_module(tg.autograd.__name__ + ".graph")


def test_pack_unpack_on_formula_nodes(engine):
    tg = engine
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


def test_unpacked_values_are_used(engine):
    tg = engine
    G = _graph(tg)
    x = tg.tensor(np.array([2.0, 3.0]), requires_grad=True)
    with G.saved_tensors_hooks(lambda t: t, lambda t: t * 10):
        y = (x * x).sum()  # saves x twice; backward reads 10x
    y.backward()
    assert x.grad.tolist() == [40.0, 60.0]  # 2 * 10x: proves backward used the unpacked data


def test_double_backward_through_unpacked(engine):
    tg = engine
    G = _graph(tg)
    x = tg.tensor(np.array([2.0, 3.0]), requires_grad=True)
    with G.saved_tensors_hooks(lambda t: t.detach() * 1, lambda t: t):
        y = (x ** 3).sum()
    (g,) = tg.autograd.grad(y, x, create_graph=True)
    assert g.tolist() == [12.0, 27.0]
    (h,) = tg.autograd.grad(g.sum(), x)
    assert h.tolist() == [12.0, 18.0]  # 6x: the unpacked x still leads to the leaf


def test_hooks_on_python_function(engine):
    tg = engine
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


def test_unpack_must_return_a_tensor(engine):
    tg = engine
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


def test_pack_gets_the_saved_input_itself(engine):
    tg = engine
    G = _graph(tg)
    seen = []
    x = tg.tensor(np.array([0.5, 2.0]), requires_grad=True)
    y = x * 1
    with G.saved_tensors_hooks(lambda t: seen.append(t) or t, lambda t: t):
        z = y.sin()  # saves its input y
    assert len(seen) == 1 and seen[0] is y
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([0.5, 2.0]))


def test_packed_tensor_has_no_version_check(engine):
    tg = engine
    G = _graph(tg)
    x = tg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    a = x * 1
    with G.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        b = a.exp()  # saves its output: a copy of it
    with tg.no_grad():
        b.add_(1)  # would be "modified by an inplace operation" without the hooks
    b.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0]))


def test_leaf_gradient_reaches_the_leaf_through_a_packed_copy(engine):
    tg = engine
    G = _graph(tg)
    x = tg.tensor(np.array([1.5, -2.0]), requires_grad=True)
    with G.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        y = (x * x).sum()
    (g,) = tg.autograd.grad(y, x, create_graph=True)
    assert g.tolist() == [3.0, -4.0]
    g.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]  # the second order went through the unpacked leaf


def test_hooks_are_popped_and_nest(engine):
    tg = engine
    G = _graph(tg)
    log = []
    x = tg.tensor(np.array([1.0]), requires_grad=True)
    with G.saved_tensors_hooks(lambda t: log.append("outer") or t, lambda t: t):
        with G.saved_tensors_hooks(lambda t: log.append("inner") or t, lambda t: t):
            x.sin()
        x.cos()
    x.tan()
    assert log == ["inner", "outer"]


def test_pack_error_propagates(engine):
    tg = engine
    G = _graph(tg)
    x = tg.tensor(np.array([1.0]), requires_grad=True)

    def pack(t):
        raise ValueError("no packing today")

    with G.saved_tensors_hooks(pack, lambda t: t):
        with pytest.raises(ValueError, match="no packing today"):
            x.sin()
    x.sin().backward()  # the hooks were popped despite the error


def test_save_on_cpu_keeps_the_tensor(engine):
    tg = engine
    G = _graph(tg)
    x = tg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    u = x * 1
    with G.save_on_cpu():
        out = (u * u).sum()
    with tg.no_grad():
        u.mul_(10)
    out.backward()  # as torch on a CPU tensor: the tensor itself is kept, no version check
    assert x.grad.tolist() == [20.0, 40.0]


def test_allow_mutation_on_saved_tensors(engine):
    tg = engine
    G = _graph(tg)
    x = tg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    with G.allow_mutation_on_saved_tensors():
        t = x.clone()
        out = (t * t).sum()
        t.mul_(10)  # allowed: backward uses the values t had when saved
        out.backward()
    assert x.grad.tolist() == [2.0, 4.0]
    with G.allow_mutation_on_saved_tensors():
        out = x.clone().sin().sum()
    with pytest.raises(AssertionError, match="Trying to backward outside of the "
                                             "'allow_mutation_on_saved_tensors' context"):
        out.backward()


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
    u = x * 1
    with G.save_on_cpu():
        out = (u * u).sum()
    with torch.no_grad():
        u.mul_(10)
    x.grad = None
    out.backward()
    assert x.grad.tolist() == [40.0, 60.0]
    with G.allow_mutation_on_saved_tensors():
        t = x.clone()
        out = (t * t).sum()
        t.mul_(10)
        x.grad = None
        out.backward()
    assert x.grad.tolist() == [4.0, 6.0]
    with G.allow_mutation_on_saved_tensors():
        out = x.clone().sin().sum()
    with pytest.raises(AssertionError, match="allow_mutation_on_saved_tensors"):
        out.backward()


def test_hooks_on_large_tensors_and_threads(engine):
    # large ops run without the GIL on the compiled engine: pack/unpack take it back; hooks are
    # per thread, as torch's (a graph built on another thread does not see them)
    import threading

    tg = engine
    G = _graph(tg)
    log = []
    x = tg.ones(100_000, dtype=tg.float64, requires_grad=True)
    with G.saved_tensors_hooks(lambda t: log.append("p") or t, lambda t: log.append("u") or t):
        y = (x.sin() * x).sum()
        other = []
        th = threading.Thread(target=lambda: other.append((x * x).sum()))
        th.start()
        th.join()
    n = log.count("p")
    assert n >= 2
    y.backward()
    assert log.count("u") == n
    other[0].backward()
    assert log.count("p") == n  # the other thread's graph saved without the hooks
    np.testing.assert_allclose(x.grad.numpy()[:2], np.full(2, np.cos(1.0) + np.sin(1.0) + 2.0))
