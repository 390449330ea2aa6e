"""The two nn namespaces bind the same engine-neutral layers, each to its own engine (Note
[Which engine makes a layer's parameters] in transgrad/_nn/module.py)."""

import importlib
import inspect

import pytest
from _nnhelpers import load_engine, nn_of
from transgrad._nn import module
from transgrad._nn.modules import (
    activation,
    attention,
    batchnorm,
    container,
    conv,
    distance,
    dropout,
    flatten,
    fold,
    instancenorm,
    linear,
    loss,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
)

NEUTRAL = (activation, attention, batchnorm, container, conv, distance, dropout, flatten, fold,
           instancenorm, linear, loss, normalization, padding, pixelshuffle, pooling, rnn,
           sparse, transformer, upsampling)
UNEXPORTED = {"NonDynamicallyQuantizableLinear"}  # not in torch.nn either
PARAMETERS = {"Parameter", "UninitializedParameter"}  # tensors, bound in nn/parameter.py


def _classes(nn):
    return {n: getattr(nn, n) for n in nn.__all__ if inspect.isclass(getattr(nn, n))}


def test_both_namespaces_bind_the_same_layers():
    ref, comp = nn_of(load_engine("reference")).nn, nn_of(load_engine("compiled")).nn
    assert ref.__all__ == comp.__all__
    bound = {n for n in _classes(ref) if n not in PARAMETERS}
    neutral = {n: c for m in NEUTRAL for n, c in vars(m).items()
               if inspect.isclass(c) and issubclass(c, module.Module) and not n.startswith("_")
               and c.__module__ == m.__name__ and n not in UNEXPORTED}
    assert bound == set(neutral) | {"Module"}
    for nn, engine in ((ref, "transgrad.reference"), (comp, "transgrad")):
        for name, cls in _classes(nn).items():
            if name in PARAMETERS:
                assert cls.__module__ == engine + ".nn.parameter"
                assert issubclass(cls, importlib.import_module(engine).Tensor)
                continue
            assert cls._engine == engine
            assert issubclass(cls, nn.Module)
            assert issubclass(cls, neutral.get(name, module.Module))
            # the binding sits in the file of the same name as the engine-neutral class's
            assert cls.__module__ == (engine + ".nn.modules." + (
                neutral[name].__module__.rsplit(".", 1)[1] if name in neutral else "module"))
    assert ref.Linear is not comp.Linear and ref.functional.relu is comp.functional.relu


def test_layers_make_parameters_on_their_namespace_engine(engine):
    nn = nn_of(engine).nn
    lin = nn.Linear(3, 4)
    assert type(lin.weight) is nn.Parameter and isinstance(lin.weight, engine.Tensor)
    assert isinstance(lin, nn.Module) and isinstance(nn.LogSoftmax(1), nn.Module)
    assert isinstance(nn.Conv1d(1, 1, 2), importlib.import_module(
        engine.__name__ + ".nn.modules.conv")._ConvNd)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)
            self.scale = nn.Parameter(engine.ones(2))

        def forward(self, x):
            return self.fc(x) * self.scale

    net = Net()
    out = net(engine.ones(1, 2))
    out.sum().backward()
    assert [n for n, _ in net.named_parameters()] == ["scale", "fc.weight", "fc.bias"]
    assert all(p.grad is not None for p in net.parameters())


def test_torch_module_paths(engine):
    name = engine.__name__
    nn = nn_of(engine).nn
    assert importlib.import_module(name + ".nn.parameter").Parameter is nn.Parameter
    assert importlib.import_module(name + ".nn.modules.module").Module is nn.Module
    assert importlib.import_module(name + ".nn.modules.linear").Linear is nn.Linear


def test_the_engine_neutral_layers_refuse_to_make_parameters():
    with pytest.raises(TypeError, match="has no engine"):
        linear.Linear(2, 3)

