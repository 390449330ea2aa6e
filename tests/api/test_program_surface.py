"""Names old and new programs take for granted: the legacy typed classes and ``type()``,
``repr`` as torch prints (and ``set_printoptions``), ``testing.assert_close``,
``inference_mode``, ``linspace``/``logspace``, the global switches, ``compile``."""

import numpy as np
import pytest


def _np(t):
    return np.asarray(t.detach())


def test_legacy_typed_classes(engine):
    a = engine.FloatTensor(2, 3)
    assert tuple(a.shape) == (2, 3) and a.dtype == engine.float32
    assert isinstance(a, engine.FloatTensor) and not isinstance(a, engine.DoubleTensor)
    assert isinstance(a, engine.Tensor)
    assert _np(engine.LongTensor([1, 2])).tolist() == [1, 2]
    assert engine.LongTensor([1, 2]).dtype == engine.int64
    assert tuple(engine.DoubleTensor().shape) == (0,)
    assert engine.BoolTensor([True]).dtype == engine.bool
    assert a.type() == "torch.FloatTensor" and engine.typename(a) == "torch.FloatTensor"
    assert a.type("torch.DoubleTensor").dtype == engine.float64
    assert a.type(engine.LongTensor).dtype == engine.int64
    assert a.type(engine.float32) is a
    with pytest.raises(TypeError):
        engine.FloatTensor(2, bad=1)


@pytest.mark.torch
def test_repr_is_torchs(engine):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    cases = [np.array([1.0, 2.5, 3.0]), np.array([1e-5, 1.0, 1e5]), np.arange(2000.0),
             np.array([1, 2, 3]), np.array([True, False]), np.zeros((0, 3)), np.array(3.5),
             np.array([np.nan, 1.0, np.inf]), rng.normal(size=(40, 40)),
             np.arange(100).reshape(10, 10), np.array([-0.0, 1.0]), rng.normal(size=(3, 4, 5)),
             np.array([1e10, 1.0])]
    for a in cases:
        for dt in ("float32", "float64"):
            dtype = dt if a.dtype.kind == "f" else None
            mine = engine.tensor(a, dtype=dtype)
            theirs = torch.tensor(a, dtype=getattr(torch, dtype) if dtype else None)
            assert repr(mine) == repr(theirs)
    x, t = engine.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    assert repr(x) == repr(t)
    try:
        for opts in ({"precision": 2}, {"sci_mode": True}, {"threshold": 5, "edgeitems": 1},
                     {"linewidth": 40}, {"profile": "short"}):
            engine.set_printoptions(profile="default")
            torch.set_printoptions(profile="default")
            engine.set_printoptions(**opts)
            torch.set_printoptions(**opts)
            a = rng.normal(size=(5, 7)) * [1, 10, 100, 1e3, 1e4, 1e5, 1e6]
            assert repr(engine.tensor(a)) == repr(torch.tensor(a))
    finally:
        engine.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")


def test_assert_close(engine):
    from transgrad.testing import assert_close

    assert_close(engine.ones(3), engine.ones(3) + 1e-7)
    with pytest.raises(AssertionError, match="Tensor-likes are not close!\n\nMismatched "
                                             "elements: 1 / 3 \\(33.3%\\)"):
        assert_close(engine.tensor([1.0, 2.0, 3.0]), engine.tensor([1.0, 2.1, 3.0]))
    with pytest.raises(AssertionError, match="The values for attribute 'dtype' do not match: "
                                             "torch.float32 != torch.float64."):
        assert_close(engine.ones(2), engine.ones(2, dtype=engine.float64))
    with pytest.raises(AssertionError, match="'shape' do not match: torch.Size\\(\\[2\\]\\) != "
                                             "torch.Size\\(\\[3\\]\\)"):
        assert_close(engine.ones(2), engine.ones(3))
    with pytest.raises(AssertionError, match="Tensor-likes are not equal!"):
        assert_close(engine.tensor([1, 2]), engine.tensor([1, 3]))
    with pytest.raises(AssertionError, match="The failure occurred for item \\['a'\\]"):
        assert_close({"a": engine.ones(2)}, {"a": engine.zeros(2)})
    with pytest.raises(AssertionError, match="Scalars are not close!"):
        assert_close(1.0, 1.1)
    assert_close(engine.tensor([float("nan")]), engine.tensor([float("nan")]), equal_nan=True)
    with pytest.raises(ValueError, match="Both 'rtol' and 'atol' must be either specified"):
        assert_close(engine.ones(1), engine.ones(1), rtol=0.1)
    assert engine.testing.assert_close is assert_close


def test_inference_mode(engine):
    x = engine.ones(2, requires_grad=True)
    assert not engine.is_inference_mode_enabled()
    with engine.inference_mode():
        assert engine.is_inference_mode_enabled()
        assert not (x * 2).requires_grad
    with engine.inference_mode(False):
        assert (x * 2).requires_grad

    @engine.inference_mode()
    def f():
        return x * 3

    @engine.inference_mode
    def g():
        return x * 3

    assert not f().requires_grad and not g().requires_grad and (x * 3).requires_grad


@pytest.mark.torch
def test_linspace_logspace_are_torchs(engine):
    torch = pytest.importorskip("torch")
    for args in [(0, 1, 5), (-3.3, 7.1, 11), (0, 10, 1000), (5, -5, 10), (0.1, 0.7, 333)]:
        for d in ("float32", "float64"):
            mine = engine.linspace(*args, dtype=getattr(engine, d))
            theirs = torch.linspace(*args, dtype=getattr(torch, d))
            np.testing.assert_array_equal(_np(mine), theirs.numpy())
            mine = engine.logspace(args[0], args[1], 7, base=2.0, dtype=getattr(engine, d))
            theirs = torch.logspace(args[0], args[1], 7, base=2.0, dtype=getattr(torch, d))
            np.testing.assert_array_max_ulp(_np(mine), theirs.numpy(), maxulp=2)
    assert engine.linspace(0, 1, 3).dtype == engine.float32
    assert _np(engine.linspace(0, 10, 3, dtype=engine.int64)).tolist() == [0, 5, 10]
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        engine.linspace(0, 1, -1)


def test_global_switches_and_compile(engine):
    try:
        engine.use_deterministic_algorithms(True, warn_only=True)
        assert engine.are_deterministic_algorithms_enabled()
        assert engine.is_deterministic_algorithms_warn_only_enabled()
        engine.set_float32_matmul_precision("medium")
        assert engine.get_float32_matmul_precision() == "medium"
        with pytest.raises(RuntimeError, match="Invalid precision: low"):
            engine.set_float32_matmul_precision("low")
    finally:
        engine.use_deterministic_algorithms(False)
        engine.set_float32_matmul_precision("highest")
    model = engine.nn.Linear(2, 2)
    assert engine.compile(model) is model
    assert engine.compile(mode="max-autotune")(len) is len
    assert engine.is_nonzero(engine.tensor([2.0]))
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value"):
        engine.is_nonzero(engine.ones(2))


def test_size(engine):
    s = engine.Size([2, 3])
    assert s == (2, 3) and s == engine.ones(2, 3).shape and repr(s) == "torch.Size([2, 3])"
    assert s.numel() == 6 and isinstance(s[1:], engine.Size) and s[0] == 2
    assert engine.zeros(s).shape == (2, 3)
    with pytest.raises(TypeError, match="torch.Size\\(\\) takes an iterable of 'int'"):
        engine.Size([2.5])
