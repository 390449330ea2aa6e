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
