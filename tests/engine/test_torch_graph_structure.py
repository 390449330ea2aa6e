"""The structure of the backward graph as torch's, on both engines, compared with torch where it
is installed: unbind/split/chunk record one node for all their views (Note [Several views, one
node] in csrc/autograd/multi_view.h), hooks on the output of such a node see None for a grad
nobody produced, a Function's once_differentiable backward gives its results torch's ``Error``
node (Note [once_differentiable as torch's] in transgrad/autograd/__init__.py), and the nodes a
double backward records are named as torch's (relu's, sigmoid's and tanh's backwards are
ThresholdBackwardBackward0, SigmoidBackwardBackward0, TanhBackwardBackward0; softplus, elu,
gelu, logsigmoid, softmax, log_softmax, leaky_relu likewise, abs's is a product with sgn),
``x.data = y`` keeps x's version counter, and the whole graph of everyday programs is torch's."""

import numpy as np
import pytest


def f64(tg, a, requires_grad=True):
    return tg.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def torch_or_skip():
    return pytest.importorskip("torch")


def node_name(fn):
    return None if fn is None else fn.name().split("::")[-1]


def graph(fn, depth=12):
    """The graph below ``fn`` as nested names: ``Name(child, ...)`` (None for an empty edge)."""
    if fn is None or depth == 0:
        return "None"
    kids = ", ".join(graph(n, depth - 1) for n, _ in fn.next_functions)
    return f"{node_name(fn)}({kids})"


# ---- several views, one node ----------------------------------------------------------------


def multi_view_facts(tg):
    x = f64(tg, np.arange(12.0).reshape(3, 4))
    out = []
    for call in (lambda: x.unbind(), lambda: x.unbind(1), lambda: tg.unbind(x, -1),
                 lambda: x.split(2, 1), lambda: x.split([1, 3], 1), lambda: x.chunk(2),
                 lambda: tg.split(x, 2), lambda: x.split_with_sizes([2, 2], 1)):
        views = call()
        out.append((
            [node_name(v.grad_fn) for v in views],
            all(v.grad_fn is views[0].grad_fn for v in views),
            [v.output_nr for v in views],
            [tuple(v.shape) for v in views],
            graph(views[0].grad_fn),
        ))
    return out


@pytest.mark.parametrize("engine", ["reference", "compiled"], indirect=True)
def test_unbind_split_chunk_record_one_node(engine):
    got = multi_view_facts(engine)
    assert got[0][0] == ["UnbindBackward0"] * 3 and got[0][1] and got[0][2] == [0, 1, 2]
    assert got[3][0][0] == "SplitBackward0" and got[4][0][0] == "SplitWithSizesBackward0"
    torch = torch_or_skip()
    assert got == multi_view_facts(torch)


def hook_trace(tg):
    """torch's test_grad_nonleaf_register_hook: a hook on the first view of unbind sees None
    when a backward runs the node through another view."""
    x = f64(tg, [0.5, -1.0, 2.0, 3.0, 4.0])
    xs = x.unbind()
    seen = []
    xs[0].register_hook(lambda g: seen.append(None if g is None else g.tolist()))
    trace = []
    for i in range(5):
        xs[i].backward()
        trace.append((list(seen), x.grad.tolist()))
        seen.clear()
    return trace


@pytest.mark.parametrize("engine", ["reference", "compiled"], indirect=True)
def test_hook_on_one_view_sees_none_for_the_others(engine):
    got = hook_trace(engine)
    assert got[0][0] == [1.0] and got[1][0] == [None] and got[4][1] == [1.0] * 5
    torch = torch_or_skip()
    assert got == hook_trace(torch)


@pytest.mark.parametrize("engine", ["reference", "compiled"], indirect=True)
def test_hook_may_not_replace_a_none_grad(engine):
    tg = engine
    xs = f64(tg, [1.0, 2.0]).unbind()
    xs[0].register_hook(lambda g: tg.ones((), dtype=tg.float64))
    with pytest.raises(RuntimeError, match="can't replace a None gradient with a non-None"):
        xs[1].backward()


def partial_use(tg, x):
    a, _, c = x.unbind(1)
    p, q = x.split([1, 2], 0)
    return (a * c).sum() + (q ** 2).sum() * p.sum()


@pytest.mark.parametrize("engine", ["reference", "compiled"], indirect=True)
def test_multi_view_node_gradients(engine):
    tg = engine
    x0 = np.random.default_rng(1).standard_normal((3, 3))
    x = f64(tg, x0)
    assert tg.autograd.gradcheck(lambda t: partial_use(tg, t), (x,))
    assert tg.autograd.gradgradcheck(lambda t: partial_use(tg, t), (x,))
    assert tg.autograd.gradgradcheck(lambda t: t.unbind(0)[1] * t.chunk(3, 1)[2].squeeze(1),
                                     (x,))
    torch = torch_or_skip()
    got = []
    for m in (tg, torch):
        x = m.tensor(x0, requires_grad=True)
        a, _, c = x.unbind(1)
        p, q = x.split([1, 2], 0)
        outs = [a * c, q * q, p * 3.0]
        (g,) = m.autograd.grad(outs, x, [m.ones(o.shape, dtype=m.float64) for o in outs],
                               create_graph=True)
        got.append((g.tolist(), graph(g.grad_fn)))
    assert "StackBackward0(MulBackward0(None, UnbindBackward0(AccumulateGrad())), None, " \
        in got[0][1]
    assert "CatBackward0(None, AddBackward0(MulBackward0(None, SplitWithSizesBackward0(" \
        in got[0][1]
    assert got[0] == got[1]


# ---- once_differentiable --------------------------------------------------------------------


def once_facts(tg):
    class F(tg.autograd.Function):
        @staticmethod
        def forward(ctx, t1, k, t2):
            ctx.k = k
            ctx.save_for_backward(t1, t2)
            return t1 + k * t2 + t1 * t2

        @staticmethod
        @tg.autograd.function.once_differentiable
        def backward(ctx, g):
            s1, s2 = ctx.saved_tensors
            return g + g * s2, None, g * ctx.k + g * s1

    def outcome(f):
        try:
            r = f()
        except RuntimeError as e:
            return str(e).split(" (")[0].split(":")[0]
        return [None if t is None else t.tolist() for t in r]

    rng = np.random.default_rng(2)
    a, b = f64(tg, rng.standard_normal((2, 2))), f64(tg, rng.standard_normal((2, 2)))
    facts = []
    # the incoming grad does not require grad: the results are constants, no node
    ga, _ = tg.autograd.grad(F.apply(a, 2, b).sum(), [a, b], create_graph=True)
    facts.append((ga.grad_fn is None, ga.requires_grad))
    seed = tg.ones((), dtype=tg.float64, requires_grad=True)
    ga, gb = tg.autograd.grad(F.apply(a, 2, b).sum(), [a, b], grad_outputs=seed,
                              create_graph=True)
    facts.append((graph(ga.grad_fn), ga.grad_fn is gb.grad_fn, ga.output_nr, gb.output_nr))
    facts.append(outcome(lambda: tg.autograd.grad(ga.sum(), [a])))
    facts.append(outcome(lambda: tg.autograd.grad(ga.sum(), [a], allow_unused=True)))
    facts.append(outcome(lambda: tg.autograd.grad(ga.sum(), [seed])))
    facts.append(outcome(lambda: ga.sum().backward()))
    F.apply(a, 2, b).sum().backward(seed, create_graph=True)
    facts.append("Error(AccumulateGrad(), None, AccumulateGrad())" in graph(a.grad.grad_fn))
    return facts


@pytest.mark.parametrize("engine", ["reference", "compiled"], indirect=True)
def test_once_differentiable_error_node_as_torch(engine):
    got = once_facts(engine)
    assert got[1][0] == "Error(AccumulateGrad(), None, AccumulateGrad())"
    assert got[5] == "trying to differentiate twice a function that was marked with " \
                     "@once_differentiable"
    torch = torch_or_skip()
    assert got == once_facts(torch)


# ---- the nodes of a double backward ---------------------------------------------------------


def activations(tg):
    """One-input functions whose backward torch computes with an op of its own (a double backward
    records ``<Op>BackwardBackward0``, ``SoftmaxBackwardDataBackward0``, ...), or abs, whose
    backward multiplies by sgn(x); each sums a weighted output, so that the second derivatives
    of softmax and log_softmax are not zero."""
    F = tg.nn.functional
    w = tg.tensor(np.array([[0.3, -1.2], [0.7, 2.0]]))
    return {
        "relu": tg.relu, "relu(2x).sum(0)": lambda t: F.relu(t * 2.0).sum(0),
        "sigmoid": tg.sigmoid, "tanh": tg.tanh, "tanh(sigmoid(x) x)": lambda t: tg.tanh(
            tg.sigmoid(t) * t),
        "softplus": F.softplus,
        "softplus(beta 2, threshold 1.5)": lambda t: F.softplus(t, 2.0, 1.5),
        "elu": F.elu, "elu(alpha 0.5)": lambda t: F.elu(t, 0.5), "gelu": F.gelu,
        "gelu(tanh)": lambda t: F.gelu(t, approximate="tanh"), "logsigmoid": F.logsigmoid,
        "softmax": lambda t: t.softmax(1) * w, "log_softmax": lambda t: t.log_softmax(0) * w,
        "abs": lambda t: t.abs() * w, "leaky_relu": F.leaky_relu,
        "leaky_relu(0.2)": lambda t: F.leaky_relu(t, 0.2) * w,
    }


def double_backward_graphs(tg, x0):
    out = []
    for f in activations(tg).values():
        x = tg.tensor(x0, requires_grad=True)
        (g,) = tg.autograd.grad(f(x).sum(), x, create_graph=True)
        out.append((graph(g.grad_fn), g.tolist()))
    return out


@pytest.mark.parametrize("engine", ["reference", "compiled"], indirect=True)
def test_double_backward_nodes_named_as_torch(engine):
    tg = engine
    x0 = np.array([[-1.0, 0.5], [2.0, -0.25]])
    got = double_backward_graphs(tg, x0)
    assert got[0][0].startswith("ThresholdBackwardBackward0(None, ReluBackward0(")
    assert got[2][0].startswith("SigmoidBackwardBackward0(None, SigmoidBackward0(")
    assert got[3][0].startswith("TanhBackwardBackward0(None, TanhBackward0(")
    assert got[5][0] == "SoftplusBackwardBackward0(None, AccumulateGrad())"
    assert got[12][0].startswith("SoftmaxBackwardDataBackward0(None, SoftmaxBackward0(")
    assert got[14][0] == "MulBackward0(None, SgnBackward0(AccumulateGrad()))"
    assert got[15][0] == "LeakyReluBackwardBackward0(None, AccumulateGrad())"
    x = f64(tg, x0)
    assert tg.autograd.gradgradcheck(lambda t: tg.relu(t) * t, (x,))
    assert tg.autograd.gradgradcheck(lambda t: tg.tanh(tg.sigmoid(t) * t), (x,))
    torch = torch_or_skip()
    want = double_backward_graphs(torch, x0)
    assert [graph_ for graph_, _ in got] == [graph_ for graph_, _ in want]
    np.testing.assert_allclose([v for _, v in got], [v for _, v in want], rtol=1e-13)


def third_order(tg, name, x0):
    """The third derivative of ``activations()[name]`` along fixed directions: each step
    differentiates the previous gradient's weighted sum, under create_graph."""
    x = tg.tensor(x0, requires_grad=True)
    y = activations(tg)[name](x).sum()
    out = []
    for k in range(3):
        (y,) = tg.autograd.grad(y, x, create_graph=True)
        out.append(y.tolist())
        y = (y * tg.tensor(np.cos(np.arange(y.numel()) + k).reshape(y.shape))).sum()
    return out


@pytest.mark.parametrize("engine", ["reference", "compiled"], indirect=True)
@pytest.mark.parametrize("name", ["softplus", "softplus(beta 2, threshold 1.5)", "elu",
                                  "elu(alpha 0.5)", "gelu", "gelu(tanh)", "logsigmoid",
                                  "softmax", "log_softmax"])
def test_activation_backward_ops_differentiate_thrice(engine, name):
    """gradcheck and gradgradcheck through each backward op, and the first three derivatives
    against torch's."""
    tg = engine
    x0 = np.array([[-1.0, 0.5], [2.0, -0.25]])
    f = activations(tg)[name]
    x = f64(tg, x0)
    assert tg.autograd.gradcheck(f, (x,))
    assert tg.autograd.gradgradcheck(f, (x,))
    # the first derivative as a function: its gradgradcheck is the third order
    assert tg.autograd.gradgradcheck(
        lambda t: tg.autograd.grad(f(t).sum(), t, create_graph=True)[0], (x,))
    torch = torch_or_skip()
    np.testing.assert_allclose(third_order(tg, name, x0), third_order(torch, name, x0),
                               rtol=1e-12, atol=1e-14)


# ---- whole graphs of everyday programs ------------------------------------------------------


def _setitem_slice(m, a):
    y = a * 1.0
    y[0:2] = a[4:6] * 2
    return y


# Each program takes the engine module and a leaf of 12 float64 values.
PROGRAMS = {
    "mm": lambda m, a: a.reshape(3, 4) @ a.reshape(4, 3),
    "bmm": lambda m, a: m.bmm(a.reshape(2, 2, 3), a.reshape(2, 3, 2)),
    "mv": lambda m, a: m.mv(a.reshape(3, 4), a[:4]),
    "matrix @ vector": lambda m, a: a.reshape(3, 4) @ a[:4],
    "dot": lambda m, a: m.dot(a[:4], a[4:8]),
    "vector @ vector": lambda m, a: a[:4] @ a[4:8],
    "number - tensor": lambda m, a: 1.0 - a,
    "rsub": lambda m, a: m.rsub(a, a * 2),
    "number / tensor": lambda m, a: 2.0 / a,
    "linear": lambda m, a: m.nn.functional.linear(a.reshape(3, 4), a.reshape(3, 4) * 2.0,
                                                 a[:3] * 1.0),
    "linear of a batch": lambda m, a: m.nn.functional.linear(
        a.reshape(2, 1, 6), a.reshape(2, 6), a[:2]),
    "linear, no bias": lambda m, a: m.nn.functional.linear(a.reshape(3, 4), a.reshape(3, 4)),
    "linear of a vector": lambda m, a: m.nn.functional.linear(a[:4], a.reshape(3, 4), a[:3]),
    "nn.Linear": lambda m, a: m.nn.Linear(4, 2).double()(a.reshape(3, 4)),
    "addmm": lambda m, a: m.addmm(a[:3], a.reshape(3, 4), a.reshape(4, 3)),
    "mean": lambda m, a: a.mean(),
    "sum over a dim": lambda m, a: a.reshape(3, 4).sum(1),
    "softmax": lambda m, a: a.reshape(3, 4).softmax(1),
    "tanh * sigmoid": lambda m, a: m.tanh(a) * m.sigmoid(a),
    "layer_norm": lambda m, a: m.nn.functional.layer_norm(a.reshape(3, 4), (4,)),
    "gelu": lambda m, a: m.nn.functional.gelu(a),
    "silu": lambda m, a: m.nn.functional.silu(a),
    "leaky_relu": lambda m, a: m.nn.functional.leaky_relu(a),
    "pow": lambda m, a: a ** 2,
    "log(exp + 1).sqrt": lambda m, a: (a.exp() + 1).log().sqrt(),
    "max over a dim": lambda m, a: a.reshape(3, 4).max(1)[0],
    "abs, clamp": lambda m, a: a.abs().clamp(0.1, 0.5),
    "expand": lambda m, a: a[:3].reshape(3, 1).expand(3, 4),
    "transpose": lambda m, a: a.reshape(3, 4).transpose(0, 1),
    "flatten": lambda m, a: a.reshape(3, 4).flatten(),
    "clone": lambda m, a: a.clone(),
    "unbind, stack": lambda m, a: m.stack(a.reshape(3, 4).unbind(1)[::2]),
    "chunk, cat": lambda m, a: m.cat(a.chunk(3)[1:]),
    "indexing with a list": lambda m, a: a[m.tensor([0, 2, 2])],
    "mse_loss": lambda m, a: m.nn.functional.mse_loss(a, a.detach() * 0.5),
    "mse_loss, sum": lambda m, a: m.nn.functional.mse_loss(a * 2.0, a, reduction="sum"),
    "binary_cross_entropy": lambda m, a: m.nn.functional.binary_cross_entropy(
        m.sigmoid(a), a.detach() * 0.5 + 0.5),
    "binary_cross_entropy, none": lambda m, a: m.nn.functional.binary_cross_entropy(
        m.sigmoid(a), m.sigmoid(a * 2.0), reduction="none"),
    "repeat": lambda m, a: a.reshape(3, 4).repeat(2, 1, 3),
    "repeat, 1-D": lambda m, a: a[:5].repeat(2),
    "cross_entropy": lambda m, a: m.nn.functional.cross_entropy(a.reshape(3, 4),
                                                                m.tensor([0, 1, 3])),
    "transpose, clone": lambda m, a: a.reshape(3, 4).t().clone(),
    "transpose, contiguous": lambda m, a: a.reshape(3, 4).t().contiguous(),
    "write into a slice": _setitem_slice,
    "where": lambda m, a: m.where(a > 0, a, a * 2),
    "conv2d": lambda m, a: m.nn.functional.conv2d(a.reshape(1, 1, 3, 4),
                                                  a[:4].reshape(1, 1, 2, 2)),
    "conv2d with a bias, padded": lambda m, a: m.nn.functional.conv2d(
        a.reshape(1, 2, 2, 3), a[:8].reshape(2, 2, 1, 2), a[:2] * 1.0, padding=1),
    "conv2d of many positions": lambda m, a: m.nn.functional.conv2d(
        m.ones(2, 1, 8, 6, dtype=m.float64) * a[0], a[:4].reshape(1, 1, 2, 2), a[4:5]),
    "conv1d": lambda m, a: m.nn.functional.conv1d(a.reshape(1, 2, 6), a[:4].reshape(1, 2, 2)),
}

# Programs whose graph is known to differ from torch's, and why (each must still differ: strict).
KNOWN_DIFFERENT = {
    "conv1d": "conv2d over an unsqueezed height: torch records one ConvolutionBackward0 without "
              "the Unsqueeze/Squeeze around it",
    "cross_entropy": "one CrossEntropyBackward0 formula: torch records NllLossBackward0 over "
                     "LogSoftmaxBackward0",
    "write into a slice": "the write is where(mask, index_add(...), base) (WhereBackward0): "
                          "torch records CopySlices",
    "where": "the bool condition gets an empty edge; torch gives a non-differentiable input "
             "no edge (as for the indices of indexing)",
    "indexing with a list": "the index tensor gets an empty edge (see where)",
}


def program_graph(m, name):
    a = m.tensor(np.linspace(-1.0, 1.0, 12), requires_grad=True)
    return graph(PROGRAMS[name](m, a).grad_fn)


@pytest.mark.parametrize("engine", ["reference", "compiled"], indirect=True)
@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN_DIFFERENT[n], strict=True))
    if n in KNOWN_DIFFERENT else n for n in PROGRAMS])
def test_program_graph_as_torch(engine, name):
    torch = torch_or_skip()
    assert program_graph(engine, name) == program_graph(torch, name)


# ---- x.data = y keeps x's version counter ---------------------------------------------------


def version_trace(tg):
    """torch's test_version_counter: after ``x.data = y``, x keeps counting with the views made
    of it before, and y with its own."""
    x = tg.zeros((1, 2), dtype=tg.float64)
    xz = x[:]
    x.add_(1)
    trace = [(x._version, xz._version)]
    y = tg.ones((2, 3), dtype=tg.float64)
    y.add_(1).add_(1).add_(1)
    x.data = y
    trace.append((x._version, xz._version, y._version))
    x.add_(1)
    trace.append((x._version, xz._version, y._version, y.tolist()))
    xz.add_(1)
    y.mul_(2)
    xv = x.view(6)
    xv.add_(1)
    trace.append((x._version, xz._version, y._version, xv._version, x.tolist()))
    return trace


@pytest.mark.parametrize("engine", ["reference", "compiled"], indirect=True)
def test_set_data_keeps_the_version_counter(engine):
    got = version_trace(engine)
    assert got[1] == (1, 1, 3) and got[2][:3] == (2, 2, 3)
    torch = torch_or_skip()
    assert got == version_trace(torch)


@pytest.mark.parametrize("engine", ["reference", "compiled"], indirect=True)
def test_set_data_then_backward_checks_versions(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0], requires_grad=False)
    w = f64(tg, [3.0, 4.0])
    x.data = f64(tg, [5.0, 6.0], requires_grad=False)
    y = (w * x).sum()
    x.add_(1)  # x was saved by mul: its version moved on
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


@pytest.mark.parametrize("engine", ["reference", "compiled"], indirect=True)
def test_number_minus_large_tensor(engine):
    """``1.0 - x`` and ``2.0 / x`` on a tensor large enough for the compiled operator to release
    the GIL (it crashed when the result was wrapped for Python without it)."""
    tg = engine
    x = tg.tensor(np.linspace(1.0, 2.0, 300000), requires_grad=True)
    y = 1.0 - x
    assert node_name(y.grad_fn) == "RsubBackward1"
    np.testing.assert_allclose(y.detach().numpy()[[0, -1]], [0.0, -1.0])
    np.testing.assert_allclose((2.0 / x).detach().numpy()[[0, -1]], [2.0, 1.0])
