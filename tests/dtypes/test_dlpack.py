"""DLPack both ways with numpy and torch, every dtype numpy's DLPack takes, zero-copy, read-only
respected, the producer kept alive (Note [DLPack through numpy])."""

import gc

import ml_dtypes
import numpy as np
import pytest

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


@pytest.mark.parametrize("name", NAMES)
def test_numpy_consumes_ours_zero_copy(engine, name):
    t = engine.tensor([[1, 0, 3], [4, 5, 6]], dtype=getattr(engine, name))
    a = np.from_dlpack(t)
    assert a.dtype == t.dtype and a.shape == (2, 3)
    assert np.shares_memory(a, np.asarray(t))
    assert t.__dlpack_device__() == (1, 0)


@pytest.mark.parametrize("name", NAMES)
def test_we_consume_numpy_zero_copy(engine, name):
    a = np.arange(6).astype(name).reshape(2, 3)
    t = engine.from_dlpack(a)
    assert t.dtype == a.dtype and t.shape == (2, 3)
    a[0, 0] = 1
    assert np.asarray(t)[0, 0] == 1  # the same memory


def test_producer_kept_alive(engine):
    t = engine.from_dlpack(np.arange(1000.0) * 2)  # the only reference to the array is ours
    gc.collect()
    assert np.asarray(t)[999] == 1998.0
    a = np.from_dlpack(engine.arange(1000.0) * 3)  # the only reference to the tensor is numpy's
    gc.collect()
    assert a[999] == 2997.0


def test_read_only_is_respected(engine):
    a = np.arange(3.0)
    a.flags.writeable = False
    t = engine.from_dlpack(a)
    with pytest.raises(RuntimeError, match="read-only"):
        t.add_(1.0)
    assert a.tolist() == [0.0, 1.0, 2.0]
    back = np.from_dlpack(t)
    assert not back.flags.writeable


def test_strided_views(engine):
    t = engine.arange(12.0).reshape(3, 4).t()[1:]
    a = np.from_dlpack(t)
    assert a.tolist() == np.arange(12.0).reshape(3, 4).T[1:].tolist()


@pytest.mark.parametrize("name", NAMES)
def test_torch_both_ways(engine, name):
    torch = pytest.importorskip("torch")
    t = engine.tensor([[1, 0, 3], [4, 5, 6]], dtype=getattr(engine, name))
    theirs = torch.from_dlpack(t)
    assert str(theirs.dtype) == "torch." + name
    assert theirs.tolist() == np.asarray(t).tolist()
    assert theirs.data_ptr() == np.asarray(t).ctypes.data  # zero-copy
    src = torch.arange(6).to(getattr(torch, name)).reshape(2, 3)
    ours = engine.from_dlpack(src)
    assert ours.dtype == getattr(engine, name)
    assert np.asarray(ours).ctypes.data == src.data_ptr()
    assert np.asarray(ours).tolist() == src.tolist()


def test_errors(engine):
    x = engine.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Can't export tensors that require gradient"):
        x.__dlpack__()
    with pytest.raises(BufferError, match="bfloat16"):
        engine.from_numpy(np.ones(2, ml_dtypes.bfloat16)).__dlpack__()
    with pytest.raises(TypeError, match="expected an object with __dlpack__"):
        engine.from_dlpack([1, 2])
