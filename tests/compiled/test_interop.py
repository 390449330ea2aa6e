"""numpy interop of the compiled Tensor: from_numpy and numpy()/np.asarray/buffer protocol share
memory both ways and keep each other alive; tensor() copies."""

import gc

import numpy as np
import pytest


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_from_numpy_shares_memory(compiled, dtype):
    tg = compiled
    a = np.arange(6).reshape(2, 3).astype(dtype)
    t = tg.from_numpy(a)
    assert t.shape == (2, 3) and t.dtype == np.dtype(dtype)
    b = t.detach().numpy()
    assert np.shares_memory(a, b)
    assert np.shares_memory(a, np.asarray(t))
    assert np.shares_memory(a, np.asarray(memoryview(t)))
    a[0, 0] = 1
    assert t.detach().numpy()[0, 0] == 1


def test_from_numpy_keeps_array_alive(compiled):
    tg = compiled
    t = tg.from_numpy(np.arange(1000, dtype=np.float64))
    gc.collect()
    np.testing.assert_array_equal(t.detach().numpy(), np.arange(1000))


def test_numpy_view_keeps_tensor_storage_alive(compiled):
    tg = compiled
    a = tg.tensor([1.0, 2.0, 3.0], dtype=tg.float64).detach().numpy()
    gc.collect()
    np.testing.assert_array_equal(a, [1.0, 2.0, 3.0])
    a[1] = 7.0  # writable
    np.testing.assert_array_equal(a, [1.0, 7.0, 3.0])


def test_from_numpy_strided_and_negative_strides(compiled):
    tg = compiled
    a = np.arange(24, dtype=np.float64).reshape(4, 6)
    for view in (a[:, ::2], a.T, a[1:3, 2:5]):
        t = tg.from_numpy(view)
        assert t.shape == view.shape
        np.testing.assert_array_equal(t.detach().numpy(), view)
        np.testing.assert_array_equal((t * 1.0).detach().numpy(), view)
    # torch refuses negative strides rather than copy behind the caller's back
    with pytest.raises(ValueError, match="At least one stride in the given numpy array is "
                                         "negative"):
        tg.from_numpy(a[::-1])


def test_tensor_copies(compiled):
    tg = compiled
    a = np.array([1.0, 2.0])
    t = tg.tensor(a)
    a[0] = 5.0
    assert t.detach().numpy()[0] == 1.0
    assert not np.shares_memory(a, t.detach().numpy())


def test_unsupported_dtype_is_type_error(compiled):
    tg = compiled
    with pytest.raises(TypeError, match="unsupported dtype"):
        tg._C.from_numpy(np.zeros(3, dtype=np.uint16))
    with pytest.raises(TypeError, match="unsupported dtype"):
        tg._C.from_numpy(np.zeros(3, dtype=">f8"))


def test_item_and_repr(compiled):
    tg = compiled
    assert tg.tensor(2.5, dtype=tg.float64).item() == 2.5
    assert tg.tensor(3).item() == 3
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        tg.tensor([1.0, 2.0]).item()
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    assert "requires_grad=True" in repr(x)
    assert "grad_fn=<" in repr(x * 2)


def test_error_types_are_mapped(compiled):
    tg = compiled
    k = tg._C._kernels
    with pytest.raises(ValueError):  # the kernel's own refusal (the API handles 1-D operands)
        k.matmul(tg.ones(2), tg.ones(2, 2))
    with pytest.raises(RuntimeError):  # shapes that do not broadcast: torch's RuntimeError
        k.add(tg.ones(2, 3), tg.ones(4))
    with pytest.raises(tg.linalg.LinAlgError):
        k.inverse(tg.zeros(2, 2))
    with pytest.raises(IndexError):
        k.select(tg.ones(2, 3), 0, 5)
