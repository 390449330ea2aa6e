"""Module.to/cpu/cuda with torch's argument forms, and torch's module paths on both engines."""

import importlib

import pytest

PATHS = ["nn.parameter", "nn.modules.module", "nn.init", "nn.functional", "nn.utils",
         "nn.utils.clip_grad", "nn.utils.convert_parameters", "utils.data.dataloader",
         "utils.data.sampler", "utils.data.dataset", "utils.checkpoint", "autograd.function",
         "autograd.grad_mode", "optim.optimizer", "optim.lr_scheduler"]


@pytest.mark.parametrize("path", PATHS)
def test_torch_module_paths(engine, path):
    importlib.import_module(f"{engine.__name__}.{path}")


def test_module_paths_name_the_same_objects(engine):
    mod = importlib.import_module
    assert mod(f"{engine.__name__}.optim.optimizer").Optimizer is engine.optim.Optimizer
    assert mod(f"{engine.__name__}.autograd.grad_mode").no_grad is engine.no_grad
    assert mod(f"{engine.__name__}.autograd.grad_mode").inference_mode is engine.inference_mode
    assert mod(f"{engine.__name__}.nn.utils.clip_grad").clip_grad_norm_ is \
        engine.nn.utils.clip_grad_norm_
    assert mod(f"{engine.__name__}.utils.data.sampler").RandomSampler is \
        engine.utils.data.RandomSampler


def test_module_to_forms(engine):
    m = engine.nn.Sequential(engine.nn.Linear(2, 2), engine.nn.BatchNorm1d(2))
    assert m.to("cpu") is m and m.cpu() is m and m.to(engine.device("cpu")) is m
    assert m.to("cpu", engine.float64)[0].weight.dtype == engine.float64
    assert m.to(device="cpu", dtype=engine.float32)[1].running_mean.dtype == engine.float32
    assert m.to(engine.ones(1, dtype=engine.float64))[0].bias.dtype == engine.float64
    assert m.double()[0].weight.dtype == engine.float64 and m.float()[0].weight.dtype == \
        engine.float32
    with pytest.raises(RuntimeError, match="CPU only"):
        m.to("cuda")
    with pytest.raises(RuntimeError, match="CPU only"):
        m.cuda()
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex "
                                        "dtypes"):
        m.to(engine.int64)


@pytest.mark.parametrize("convert", ["double", "half", "to_dtype", "to_tensor"])
def test_module_to_keeps_parameters_and_optimizer(engine, convert):
    """torch's Module._apply sets ``param.data`` (Note [Module.to keeps the Parameters]): the
    Parameter objects and their grads stay, so an optimizer built before ``.double()`` steps the
    model; floating buffers are replaced, integer ones kept."""
    m = engine.nn.Sequential(engine.nn.Linear(3, 2), engine.nn.BatchNorm1d(2))
    opt = engine.optim.SGD(m.parameters(), lr=0.5)
    m[0].weight.grad = engine.ones(2, 3)
    params, grad = list(m.parameters()), m[0].weight.grad
    mean, count = m[1].running_mean, m[1].num_batches_tracked
    target = engine.float16 if convert == "half" else engine.float64
    {"double": lambda: m.double(), "half": lambda: m.half(),
     "to_dtype": lambda: m.to(target),
     "to_tensor": lambda: m.to(engine.ones(1, dtype=target))}[convert]()
    assert all(a is b for a, b in zip(m.parameters(), params))
    assert all(p.dtype == target and p.requires_grad and p.is_leaf
               and isinstance(p, engine.nn.Parameter) for p in params)
    assert m[0].weight.grad is grad and grad.dtype == target
    assert m[1].running_mean is not mean and m[1].running_mean.dtype == target
    assert m[1].num_batches_tracked is count and count.dtype == engine.int64
    assert opt.param_groups[0]["params"][0] is m[0].weight
    before = m[0].weight.detach().clone()
    opt.step()  # the optimizer steps the module's own parameters, in their new dtype
    assert m[0].weight.dtype == target
    assert float((before - m[0].weight.detach()).float().abs().max()) == pytest.approx(0.5)


def test_module_double_trains_as_torch(engine):
    """The same loop in torch and here: the optimizer is built before ``.double()``."""
    torch = pytest.importorskip("torch")
    import numpy as np

    rng = np.random.default_rng(0)
    w0, x0 = rng.standard_normal((1, 3)), rng.standard_normal((8, 3))
    losses = {}
    for lib in (torch, engine):
        model = lib.nn.Linear(3, 1, bias=False)
        with lib.no_grad():
            model.weight.copy_(lib.tensor(w0, dtype=lib.float32))
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        model.double()
        x = lib.tensor(x0)
        curve = []
        for _ in range(3):
            opt.zero_grad()
            loss = (model(x) ** 2).mean()
            loss.backward()
            opt.step()
            curve.append(loss.item())
        losses[lib] = curve
        assert model.weight.dtype == lib.float64
    np.testing.assert_allclose(losses[engine], losses[torch], rtol=1e-12)
    assert losses[engine][2] < losses[engine][0]  # it learns: the optimizer holds its params
