"""autograd.graph beyond saved-tensor hooks, on both engines: register_multi_grad_hook in
modes "all" and "any" (once per backward, None for tensors a backward does not reach, removal),
and Node introspection (name, next_functions, metadata kept on the node, register_hook and
register_prehook); each compared with torch 2.13 where torch is installed."""

import importlib

import numpy as np
import pytest


def _graph(tg):
    return importlib.import_module(tg.autograd.__name__ + ".graph")


def _lists(grads):
    return tuple(None if g is None else g.tolist() for g in grads)


def _multi_all_run(lib, G, tensor):
    """The "all" scenario on any library (torch too): the calls the hook saw."""
    a0 = tensor([1.0, 2.0], requires_grad=True)
    b0 = tensor([3.0], requires_grad=True)
    c0 = tensor([5.0], requires_grad=True)
    a, b, c = a0 * 1, b0 * 1, c0 * 1
    calls = []
    h = G.register_multi_grad_hook((a, b, c), lambda gs: calls.append(_lists(gs)))
    loss = a.sum() * 2 + b.sum() * 3
    loss.backward(retain_graph=True)  # c is not reached: None in its place
    lib.autograd.grad(a.sum() + b.sum() * 2 + c.sum(), (b,), retain_graph=True)
    lib.autograd.grad(a.sum() + b.sum() * 2 + c.sum(), (b0, a0), retain_graph=True)
    h.remove()
    loss.backward()  # removed: no call
    return calls


MULTI_ALL = [([2.0, 2.0], [3.0], None), (None, [2.0], None), ([1.0, 1.0], [2.0], None)]


def test_multi_grad_hook_all(engine):
    tg = engine
    assert _multi_all_run(tg, _graph(tg), lambda v, **k: tg.tensor(np.array(v), **k)) == MULTI_ALL


def _multi_any_run(G, tensor):
    a0 = tensor([1.0, 2.0], requires_grad=True)
    b0 = tensor([3.0], requires_grad=True)
    x, y = a0 * 1, b0 * 1
    calls = []
    G.register_multi_grad_hook((x, y), lambda g: calls.append(g.tolist()), mode="any")
    loss = x.sum() * 3 + y.sum() * 4
    loss.backward(retain_graph=True)
    loss.backward()
    return calls


def test_multi_grad_hook_any(engine):
    tg = engine
    # once per backward, with the first gradient computed (y's node is the later one)
    assert _multi_any_run(_graph(tg), lambda v, **k: tg.tensor(np.array(v), **k)) == [[4.0],
                                                                                       [4.0]]


def test_multi_grad_hook_all_on_leaves(engine):
    tg = engine
    G = _graph(tg)
    a = tg.tensor(np.array([1.0]), requires_grad=True)
    b = tg.tensor(np.array([2.0]), requires_grad=True)
    seen = []
    G.register_multi_grad_hook((a, b), lambda gs: seen.append(_lists(gs)))
    (a * b).sum().backward()
    (a * 5).sum().backward()
    assert seen == [([2.0], [1.0]), ([5.0], None)]


def test_multi_grad_hook_bad_mode(engine):
    G = _graph(engine)
    x = engine.tensor(np.array([1.0]), requires_grad=True)
    with pytest.raises(ValueError, match=r"Expects mode to be one of \('all', 'any'\) but got "
                                         "some"):
        G.register_multi_grad_hook((x,), print, mode="some")
    plain = engine.tensor(np.array([1.0]))
    with pytest.raises(AssertionError, match="Expected gradient function to be set"):
        G.register_multi_grad_hook((x, plain), print)
    G.register_multi_grad_hook((x, plain), print, mode="any").remove()  # left out, as torch


def test_multi_grad_hook_torch_agrees():
    torch = pytest.importorskip("torch")
    G = torch.autograd.graph
    tensor = lambda v, **k: torch.tensor(v, dtype=torch.float64, **k)  # noqa: E731
    assert _multi_all_run(torch, G, tensor) == MULTI_ALL
    assert _multi_any_run(G, tensor) == [[4.0], [4.0]]
    with pytest.raises(ValueError, match=r"Expects mode to be one of \('all', 'any'\)"):
        G.register_multi_grad_hook((tensor([1.0], requires_grad=True),), print, mode="some")
    leaf, plain = tensor([1.0], requires_grad=True), tensor([1.0])
    with pytest.raises(AssertionError, match="Expected gradient function to be set"):
        G.register_multi_grad_hook((leaf, plain), print)
    G.register_multi_grad_hook((leaf, plain), print, mode="any").remove()


def test_node_introspection(engine):
    tg = engine
    G = _graph(tg)
    x = tg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    y = x * 2
    node = y.grad_fn
    assert isinstance(node, G.Node)
    assert node.name().startswith("MulBackward")
    (first, nr), (second, nr2) = node.next_functions
    assert first.name() == "AccumulateGrad" and nr == 0 and first.variable is x
    assert second is None
    assert node.metadata == {}
    node.metadata["tag"] = 7
    assert y.grad_fn.metadata == {"tag": 7}  # kept on the node, not on one wrapper
    log = []
    node.register_prehook(lambda gouts: log.append(("pre", gouts[0].tolist())))
    node.register_hook(lambda gins, gouts: log.append(("post", gins[0].tolist())))
    y.sum().backward()
    assert log == [("pre", [1.0, 1.0]), ("post", [2.0, 2.0])]


def test_node_introspection_torch_agrees():
    torch = pytest.importorskip("torch")
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    node = y.grad_fn
    assert isinstance(node, torch.autograd.graph.Node)
    (first, nr), (second, _) = node.next_functions
    assert first.name() == "torch::autograd::AccumulateGrad" and first.variable is x
    assert second is None and node.metadata == {}
    node.metadata["tag"] = 7
    assert y.grad_fn.metadata == {"tag": 7}


def test_both_graph_modules_export_the_same_names(ref, compiled):
    assert _graph(ref).__all__ == _graph(compiled).__all__
    torch = pytest.importorskip("torch")
    ours = {"to_dot", "to_svg", "render"}  # drawing the graph: transgrad's own (issue 12)
    assert set(_graph(ref).__all__) - ours <= set(dir(torch.autograd.graph))
