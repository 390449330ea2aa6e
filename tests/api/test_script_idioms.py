"""Python protocols and switches scripts rely on, as torch: ``f"{loss}"`` and ``f"{loss:.4f}"``
of a 0-d tensor, ``x in t``, the truth of an empty tensor, ``torch.where(condition)``,
``print(param)``, ``autograd.set_detect_anomaly`` called as a function, ``backends.cuda`` flags.
Each compared with torch where installed, on both engines."""

import numpy as np
import pytest


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001  (the error's type and words are the result)
        return (type(e).__name__, str(e))


def _same_as_torch(engine, program):
    torch = pytest.importorskip("torch")
    assert _outcome(lambda: program(engine)) == _outcome(lambda: program(torch))


@pytest.mark.parametrize("program", [
    lambda t: f"{t.tensor(0.123456)}",
    lambda t: f"{t.tensor(0.123456):.3f}",
    lambda t: f"{t.tensor(7):5d}|{t.tensor(2.5):>8}|{t.tensor(True)}",
    lambda t: f"loss {t.tensor(1.5, requires_grad=True) * 2:.2f}",
    lambda t: "{:.1e}".format(t.tensor(12345.0)),
    lambda t: f"{t.tensor([1.0, 2.0]):.2f}",
    lambda t: f"{t.tensor([1.0, 2.0])}",
], ids=["0d", "0d-spec", "0d-int-bool", "0d-grad", "str.format", "1d-spec", "1d-empty-spec"])
def test_format_as_torch(engine, program):
    _same_as_torch(engine, program)


def test_format_of_a_parameter_is_its_str(engine):
    nn = pytest.importorskip(engine.__name__ + ".nn")
    p = nn.Parameter(engine.tensor(2.0))
    assert f"{p}" == str(p) and str(p).startswith("Parameter containing:\n")


@pytest.mark.parametrize("program", [
    lambda t: 3.25 in t.tensor([[1.5, 3.25], [0.0, 1.0]]),
    lambda t: 7 in t.tensor([[1.5, 3.25], [0.0, 1.0]]),
    lambda t: t.tensor(1.0) in t.tensor([[1.5, 3.25], [0.0, 1.0]]),
    lambda t: t.tensor([0.0, 1.0]) in t.tensor([[1.5, 3.25], [0.0, 1.0]]),
    lambda t: 2 in t.arange(4),
    lambda t: 1.0 in t.tensor([]),
    lambda t: [1.0] in t.tensor([1.0]),
], ids=["float", "absent", "0d-tensor", "row", "int", "empty", "list"])
def test_contains_as_torch(engine, program):
    _same_as_torch(engine, program)


@pytest.mark.parametrize("program", [
    lambda t: bool(t.tensor([])),
    lambda t: bool(t.zeros(2, 0)),
    lambda t: bool(t.tensor([0.0, 1.0])),
    lambda t: bool(t.tensor([[2.0]])),
    lambda t: bool(t.tensor(0)),
], ids=["empty", "empty-2d", "two", "one", "zero"])
def test_truth_as_torch(engine, program):
    _same_as_torch(engine, program)


def test_where_with_only_a_condition_is_nonzero_as_tuple(engine):
    torch = pytest.importorskip("torch")
    a = np.array([[1.5, -2.0, 3.25], [0.0, 1e-5, 100.0]])
    ours = engine.where(engine.tensor(a) > 1)
    theirs = torch.where(torch.tensor(a) > 1)
    assert isinstance(ours, tuple) and len(ours) == len(theirs) == 2
    for o, t in zip(ours, theirs):
        assert np.asarray(o).tolist() == t.tolist() and o.dtype == engine.int64
    with pytest.raises(TypeError, match="where"):
        engine.where(engine.tensor(a) > 1, engine.tensor(a))


def test_print_of_a_parameter_as_torch(engine):
    torch = pytest.importorskip("torch")
    nn = pytest.importorskip(engine.__name__ + ".nn")
    ours = nn.Parameter(engine.tensor([1.0, 2.0]))
    theirs = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    assert str(ours) == str(theirs) and repr(ours) == repr(theirs)


def test_set_detect_anomaly_is_a_call_and_a_context(engine):
    autograd = engine.autograd
    x = engine.tensor([0.0], requires_grad=True)
    autograd.set_detect_anomaly(True)  # as a function call at the top of a script
    try:
        with pytest.raises(RuntimeError):
            (x * 0).sqrt().sum().backward()  # the gradient of sqrt at 0 times 0 is NaN
    finally:
        autograd.set_detect_anomaly(False)
    (x * 0).sqrt().sum().backward()  # off again: no check
    with autograd.set_detect_anomaly(True):
        with pytest.raises(RuntimeError):
            (x * 0).sqrt().sum().backward()
    (x * 0).sqrt().sum().backward()  # the with block restored the previous mode

    @autograd.detect_anomaly()
    def step():
        (x * 0).sqrt().sum().backward()

    with pytest.raises(RuntimeError):
        step()


def test_backends_cuda_flags_as_torch_without_cuda(engine):
    torch = pytest.importorskip("torch")
    ours, theirs = engine.backends.cuda, torch.backends.cuda
    assert ours.is_built() is theirs.is_built() is False
    for name in ("allow_tf32", "allow_fp16_reduced_precision_reduction"):
        assert getattr(ours.matmul, name) == getattr(theirs.matmul, name)
    assert ours.flash_sdp_enabled() is True
    ours.matmul.allow_tf32 = True  # scripts set it; nothing reads it on the CPU
    ours.matmul.allow_tf32 = False
    ours.enable_flash_sdp(False)
    assert ours.flash_sdp_enabled() is False
    ours.enable_flash_sdp(True)
    engine.backends.cudnn.benchmark = True
    engine.backends.cudnn.benchmark = False
