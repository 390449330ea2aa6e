"""Nodes are named as torch names the node it records for the same op (``MulBackward0``,
``SumBackward0`` for ``sum()``, ``SumBackward1`` for ``sum(dim)``, ``ViewBackward0`` for a
reshape, ...): ``grad_fn.name()``, ``repr(grad_fn)``, a tensor's printed ``grad_fn=<...>``,
anomaly messages and ``to_dot``, on both engines (issue 13). The table behind the names is
generated from torch's derivatives.yaml: tests/translator/test_node_name_table.py."""

import warnings

import numpy as np
import pytest


def _x(e, *shape):
    rng = np.random.default_rng(0)
    return e.tensor(rng.uniform(0.5, 1.5, shape), requires_grad=True)


# (what the call records, the call on either library: m is the module, F its nn.functional)
BATTERY = [
    ("MulBackward0", lambda m, F, x, y: x * y),
    ("MulBackward0", lambda m, F, x, y: x * 2.0),
    ("AddBackward0", lambda m, F, x, y: x + y),
    ("AddBackward0", lambda m, F, x, y: x + 1.0),
    ("SubBackward0", lambda m, F, x, y: x - y),
    ("DivBackward0", lambda m, F, x, y: x / y),
    ("NegBackward0", lambda m, F, x, y: -x),
    ("PowBackward0", lambda m, F, x, y: x ** 2),
    ("PowBackward1", lambda m, F, x, y: x ** y),
    ("SumBackward0", lambda m, F, x, y: x.sum()),
    ("SumBackward1", lambda m, F, x, y: x.sum(1)),
    ("SumBackward1", lambda m, F, x, y: m.sum(x, dim=0, keepdim=True)),
    ("MeanBackward0", lambda m, F, x, y: x.mean()),
    ("MeanBackward1", lambda m, F, x, y: x.mean(1)),
    ("ProdBackward0", lambda m, F, x, y: x.prod()),
    ("ProdBackward1", lambda m, F, x, y: x.prod(1)),
    ("AmaxBackward0", lambda m, F, x, y: x.amax(1)),
    ("MaxBackward0", lambda m, F, x, y: x.max(1)[0]),
    ("LogsumexpBackward0", lambda m, F, x, y: x.logsumexp(1)),
    ("TanhBackward0", lambda m, F, x, y: x.tanh()),
    ("ExpBackward0", lambda m, F, x, y: x.exp()),
    ("LogBackward0", lambda m, F, x, y: x.log()),
    ("SinBackward0", lambda m, F, x, y: m.sin(x)),
    ("SqrtBackward0", lambda m, F, x, y: x.sqrt()),
    ("SigmoidBackward0", lambda m, F, x, y: x.sigmoid()),
    ("ReluBackward0", lambda m, F, x, y: x.relu()),
    ("AbsBackward0", lambda m, F, x, y: x.abs()),
    ("ViewBackward0", lambda m, F, x, y: x.view(6)),
    ("ViewBackward0", lambda m, F, x, y: x.reshape(3, 2)),
    ("ExpandBackward0", lambda m, F, x, y: x.expand(4, 2, 3)),
    ("PermuteBackward0", lambda m, F, x, y: x.permute(1, 0)),
    ("TransposeBackward0", lambda m, F, x, y: x.transpose(0, 1)),
    ("UnsqueezeBackward0", lambda m, F, x, y: x.unsqueeze(0)),
    ("SqueezeBackward0", lambda m, F, x, y: x.unsqueeze(0).squeeze()),
    ("SelectBackward0", lambda m, F, x, y: x[0]),
    ("SliceBackward0", lambda m, F, x, y: x[:, 1:]),
    ("CloneBackward0", lambda m, F, x, y: x.clone()),
    ("CatBackward0", lambda m, F, x, y: m.cat([x, y])),
    ("StackBackward0", lambda m, F, x, y: m.stack([x, y])),
    ("SoftmaxBackward0", lambda m, F, x, y: m.softmax(x, 1)),
    ("LogSoftmaxBackward0", lambda m, F, x, y: F.log_softmax(x, dim=1)),
    ("WhereBackward0", lambda m, F, x, y: m.where(x > 1.0, x, y)),
    ("MaximumBackward0", lambda m, F, x, y: m.maximum(x, y)),
    ("ToCopyBackward0", lambda m, F, x, y: x.to(m.float32)),
    ("CumsumBackward0", lambda m, F, x, y: x.cumsum(1)),
    ("FlipBackward0", lambda m, F, x, y: x.flip(0)),
    ("GatherBackward0", lambda m, F, x, y: x.gather(1, m.tensor([[0], [2]]))),
    ("IndexSelectBackward0", lambda m, F, x, y: x.index_select(1, m.tensor([0, 2]))),
    ("DiagonalBackward0", lambda m, F, x, y: x.diagonal()),
    ("TrilBackward0", lambda m, F, x, y: x.tril()),
    ("MmBackward0", lambda m, F, x, y: x @ y.t().contiguous()),
    ("SqueezeBackward1", lambda m, F, x, y: x.unsqueeze(1).squeeze(1)),
    ("TBackward0", lambda m, F, x, y: x.t()),
    ("AddmmBackward0", lambda m, F, x, y: F.linear(x, y, y[:, 0])),  # nn.Linear on a batch
    ("MmBackward0", lambda m, F, x, y: F.linear(x, y)),
]


@pytest.mark.parametrize("expected,call", BATTERY, ids=[f"{n}-{i}" for i, (n, _) in
                                                         enumerate(BATTERY)])
def test_node_names_are_torchs(engine, expected, call):
    x, y = _x(engine, 2, 3), _x(engine, 2, 3)
    fn = call(engine, engine.nn.functional, x, y).grad_fn
    assert fn.name() == expected
    assert f"<{expected}" in repr(fn)


@pytest.mark.parametrize("expected,call", BATTERY, ids=[f"{n}-{i}" for i, (n, _) in
                                                         enumerate(BATTERY)])
def test_node_names_as_torch(expected, call):
    torch = pytest.importorskip("torch")
    import transgrad as tg
    import transgrad.reference as ref

    tx = torch.tensor(np.random.default_rng(0).uniform(0.5, 1.5, (2, 3)), requires_grad=True)
    ty = torch.tensor(np.random.default_rng(1).uniform(0.5, 1.5, (2, 3)), requires_grad=True)
    theirs = call(torch, torch.nn.functional, tx, ty).grad_fn
    assert theirs.name() == expected and type(theirs).__name__ == expected
    for e in (tg, ref):
        ours = call(e, e.nn.functional, _x(e, 2, 3), _x(e, 2, 3)).grad_fn
        assert ours.name() == theirs.name()
        # a class per node name, as torch's (Note [Node classes named as torch's])
        assert type(ours).__name__ == type(theirs).__name__
        assert repr(ours).startswith(f"<{type(theirs).__name__} object at 0x")
        assert repr(theirs).startswith(f"<{type(theirs).__name__} object at 0x")


def test_node_classes_one_per_name(engine):
    """Every node of one name is an instance of one class, named as torch's, also when reached
    through next_functions; the classes are still the engine's graph Node."""
    x = _x(engine, 2, 3)
    a, b = (x * 2).grad_fn, (x * 3).grad_fn
    assert type(a) is type(b) and type(a).__name__ == "MulBackward0"
    y = (x * 2).sum()
    (mul, _), = y.grad_fn.next_functions
    assert type(mul).__name__ == "MulBackward0" and type(mul) is type(a)
    acc = mul.next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad" and acc.variable is x
    assert isinstance(a, engine.autograd.graph.Node)
    assert mul.name() == "MulBackward0"


def test_printed_forms_use_torchs_names(engine):
    x = _x(engine, 2, 3)
    assert repr(x * 2).endswith("grad_fn=<MulBackward0>)")
    assert repr(x.sum()).endswith("grad_fn=<SumBackward0>)")
    dot = engine.autograd.graph.to_dot(x.sum(1))
    assert "SumBackward1" in dot and "AccumulateGrad" in dot


@pytest.mark.parametrize("lib", ["engine", "torch"])
def test_anomaly_message_names_torchs_node(engine, lib):
    m = pytest.importorskip("torch") if lib == "torch" else engine
    x = m.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with m.autograd.detect_anomaly():
            y = x.sqrt()  # its backward divides the incoming 0 by 2 sqrt(0): nan
            with pytest.raises(RuntimeError, match="Function 'SqrtBackward0' returned nan values "
                                                   "in its 0th output."):
                (y * 0.0).sum().backward()


@pytest.mark.parametrize("lib", ["engine", "torch"])
def test_linear_module_records_addmm(engine, lib):
    """nn.Linear on a batch of vectors records torch's AddmmBackward0 (MmBackward0 without a
    bias), whose inputs are the bias, the input and the weight's transpose in torch."""
    m = pytest.importorskip("torch") if lib == "torch" else engine
    x = m.ones(4, 3, requires_grad=True)
    with_bias, without = m.nn.Linear(3, 2), m.nn.Linear(3, 2, bias=False)
    assert type(with_bias(x).grad_fn).__name__ == "AddmmBackward0"
    assert without(x).grad_fn.name() == "MmBackward0"
    with_bias(x).sum().backward()
    assert x.grad.shape == (4, 3) and with_bias.bias.grad.shape == (2,)
