"""Devices as torch's on a machine without CUDA (issue 13 item 1): the CPU everywhere a program
names a device; any other device is a clear RuntimeError where it is asked for."""

import pytest


def test_device_parses_and_prints_as_torch(engine):
    d = engine.device
    assert repr(d("cpu")) == "device(type='cpu')"
    assert str(d("cpu:0")) == "cpu:0" and d("cpu", 0).index == 0
    assert d("cuda", 1) == d("cuda:1") and d("cuda:1").type == "cuda"
    assert d(d("cpu")) == d("cpu") and hash(d("cpu")) == hash(d("cpu"))
    assert d("cpu") != "cpu"  # as torch: a device is not equal to its string
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        d("gpu")
    with pytest.raises(RuntimeError, match="must not include an index"):
        d("cuda:0", 1)


def test_device_matches_torch():
    torch = pytest.importorskip("torch")
    import transgrad.reference as tg

    for spec in ("cpu", "cpu:0", "cuda:3", "mps", "meta"):
        assert repr(tg.device(spec)) == repr(torch.device(spec))
        assert str(tg.device(spec)) == str(torch.device(spec))


@pytest.mark.parametrize("make", [
    lambda tg, dev: tg.zeros(2, device=dev), lambda tg, dev: tg.ones(2, 3, device=dev),
    lambda tg, dev: tg.tensor([1.0], device=dev), lambda tg, dev: tg.arange(3, device=dev),
    lambda tg, dev: tg.randn(2, device=dev), lambda tg, dev: tg.full((2,), 1.0, device=dev),
    lambda tg, dev: tg.zeros_like(tg.ones(2), device=dev), lambda tg, dev: tg.eye(2, device=dev),
    lambda tg, dev: tg.randint(0, 5, (3,), device=dev), lambda tg, dev: tg.ones(2).to(dev),
], ids=["zeros", "ones", "tensor", "arange", "randn", "full", "zeros_like", "eye", "randint",
        "to"])
def test_factories_take_the_cpu_and_refuse_other_devices(engine, make):
    for dev in ("cpu", "cpu:0", engine.device("cpu"), None):
        assert make(engine, dev).device == engine.device("cpu")
    for dev in ("cuda", "cuda:0", "mps", engine.device("cuda", 1)):
        with pytest.raises(RuntimeError, match="CPU only"):
            make(engine, dev)


def test_tensor_device_methods(engine):
    x = engine.ones(2)
    assert x.device.type == "cpu" and x.is_cuda is False
    assert x.to("cpu") is x and x.cpu() is x
    assert x.to("cpu", engine.float64).dtype == engine.float64
    assert x.to(device="cpu", dtype=engine.float64).dtype == engine.float64
    y = x.to("cpu", copy=True)
    assert y is not x and y.tolist() == x.tolist()
    with pytest.raises(RuntimeError, match="CPU only"):
        x.cuda()


def test_cuda_accelerator_and_backends_answer_as_torch_without_cuda(engine):
    assert engine.cuda.is_available() is False and engine.cuda.device_count() == 0
    engine.cuda.manual_seed_all(0)  # ignored, as torch without CUDA
    engine.cuda.manual_seed(0)
    engine.cuda.empty_cache()
    with pytest.raises(RuntimeError, match="no CUDA device"):
        engine.cuda.current_device()
    assert engine.accelerator.is_available() is False
    assert engine.accelerator.current_accelerator() is None
    assert engine.backends.mps.is_available() is False
    engine.backends.cudnn.deterministic = True  # a flag programs set; nothing reads it
    engine.backends.cudnn.deterministic = False
    assert engine.get_default_device() == engine.device("cpu")
    engine.set_default_device("cpu")
    with pytest.raises(RuntimeError, match="CPU only"):
        engine.set_default_device("cuda")


def test_the_usual_device_idiom_runs(engine):
    device = engine.device("cuda" if engine.cuda.is_available() else "cpu")
    x = engine.randn(3, 2, device=device)
    assert (x.to(device) * 2).device == device
