"""The numpy kernels (transgrad.reference.kernels) against translator/signatures.py and numpy.

Checks Note [Kernel conventions]: same names and parameter names as the declarations,
broadcasting and promotion (bool < int64 < float32 < float64), negative dims, errors naming the
shapes, exact reduction dims, views sharing storage and version counter, index wrapping and
range errors, float32 preserved, numerically stable sigmoid/logsumexp/softmax.
"""

import inspect
import math

import numpy as np
import pytest
from transgrad.reference import kernels as K
from transgrad.reference.tensor import Tensor
from transgrad.translator.signatures import KERNELS

rng = np.random.default_rng(0)


def t(a, dtype=None):
    return Tensor._from_array(np.asarray(a, dtype=dtype))


def randn(*shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def close(out, expected, dtype=None):
    assert isinstance(out, Tensor)
    expected = np.asarray(expected)
    assert out.shape == expected.shape
    assert out.dtype == (np.dtype(dtype) if dtype is not None else expected.dtype)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-6 if out.dtype == np.float32
                               else 1e-12, atol=1e-7, equal_nan=True)


# ---------------------------------------------------------------------------------------------
# The declarations


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_every_signature_has_a_kernel_with_the_same_parameters(name):
    fn = getattr(K, name, None)
    assert callable(fn), f"transgrad.reference.kernels has no kernel {name}"
    params = list(inspect.signature(fn).parameters)
    assert params == [p.name for p in KERNELS[name].params]


# ---------------------------------------------------------------------------------------------
# Elementwise unary

UNARY = {
    "neg": np.negative, "exp": np.exp, "log": np.log, "log1p": np.log1p, "expm1": np.expm1,
    "sqrt": np.sqrt, "rsqrt": lambda a: 1 / np.sqrt(a), "reciprocal": lambda a: 1 / a,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh,
    "sigmoid": lambda a: 1 / (1 + np.exp(-a)), "relu": lambda a: np.maximum(a, 0),
    "abs": np.abs, "sign": np.sign, "erf": np.vectorize(math.erf),
}
POSITIVE = {"log", "log1p", "sqrt", "rsqrt"}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_unary_matches_numpy_and_keeps_dtype(name, dtype):
    a = randn(3, 4, dtype=dtype)
    if name in POSITIVE:
        a = np.abs(a) + dtype(0.1)
    expected = UNARY[name](a.astype(np.float64)).astype(dtype)
    close(getattr(K, name)(t(a)), expected, dtype)


@pytest.mark.parametrize("name", ["exp", "sin", "sigmoid", "erf", "sqrt"])
def test_floating_unary_computes_integers_in_the_default_dtype(name):
    """Note [Integers in floating kernels] (translator/signatures.py): float32, as torch's, and
    float64 after set_default_dtype(float64)."""
    from transgrad.reference import kernel_support

    out = getattr(K, name)(t([1, 2, 3]))
    assert out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), UNARY[name](np.array([1.0, 2.0, 3.0])),
                               rtol=1e-6)
    kernel_support.set_default_dtype(np.float64)
    try:
        assert getattr(K, name)(t([1, 2, 3])).dtype == np.float64
    finally:
        kernel_support.set_default_dtype(np.float32)


@pytest.mark.parametrize("name", ["abs", "neg", "sign", "relu"])
def test_int_keeping_unary(name):
    out = getattr(K, name)(t([-2, 0, 3]))
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out.detach().numpy(), UNARY[name](np.array([-2, 0, 3])))


def test_neg_of_bool_is_an_error():
    with pytest.raises(ValueError, match="Negation, the `-` operator, on a bool tensor"):
        K.neg(t([True, False]))


def test_sigmoid_is_stable_for_large_inputs():
    out = K.sigmoid(t([-1000.0, -40.0, 0.0, 40.0, 1000.0])).detach().numpy()
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, [0.0, math.exp(-40) / (1 + math.exp(-40)), 0.5,
                                     1 / (1 + math.exp(-40)), 1.0], rtol=1e-12, atol=0)


def test_relu_keeps_nan():
    assert np.isnan(K.relu(t([np.nan])).detach().numpy()[0])


def test_pow_scalar_and_clamp():
    a = np.abs(randn(3, 4, dtype=np.float32)) + 0.1
    close(K.pow_scalar(t(a), 2.5), a ** np.float32(2.5), np.float32)
    b = randn(5)
    close(K.clamp(t(b), -0.5, 0.5), np.clip(b, -0.5, 0.5))
    close(K.clamp(t(b), None, 0.2), np.minimum(b, 0.2))
    close(K.clamp(t(b), -0.1, None), np.maximum(b, -0.1))
    close(K.clamp(t(b), 1.0, 0.0), np.zeros(5))  # min > max: max everywhere
    out = K.clamp(t([-3, 0, 5]), -1.5, 2.5)
    assert out.dtype == np.int64 and out.detach().numpy().tolist() == [-1, 0, 2]


@pytest.mark.parametrize("target", ["float32", "float64", "int64", "bool", np.float32])
def test_cast(target):
    a = randn(2, 3)
    out = K.cast(t(a), target)
    assert out.dtype == np.dtype(target)
    np.testing.assert_array_equal(out.detach().numpy(), a.astype(target))


# ---------------------------------------------------------------------------------------------
# Elementwise binary

BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "maximum": np.maximum, "minimum": np.minimum, "eq": np.equal, "ne": np.not_equal,
    "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
}
COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge"}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((2, 1, 3), (4, 1)), ((3,), ())])
def test_binary_broadcasts(name, shapes):
    a, b = randn(*shapes[0]), randn(*shapes[1])
    b[...] = np.where(np.abs(b) < 0.1, 0.5, b)
    close(getattr(K, name)(t(a), t(b)), BINARY[name](a, b))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_error_is_torchs(name):
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of "
                                           r"tensor b \(4\) at non-singleton dimension 1"):
        getattr(K, name)(t(randn(2, 3)), t(randn(4)))


@pytest.mark.parametrize("left, right, expected", [
    ("float32", "int64", "float32"), ("float32", "bool", "float32"),
    ("int64", "bool", "int64"), ("float32", "float64", "float64"),
    ("bool", "bool", "bool"), ("int64", "int64", "int64"),
])
def test_binary_promotion(left, right, expected):
    a, b = t(np.ones((2, 2)), left), t(np.ones(2), right)
    assert K.add(a, b).dtype == np.dtype(expected)
    assert K.mul(b, a).dtype == np.dtype(expected)
    assert K.eq(a, b).dtype == np.bool_


def test_zero_dim_float64_keeps_float32_as_torch_and_scalar_like_too():
    x = t(randn(3, dtype=np.float32))
    assert K.add(x, t(np.array(2.0))).dtype == np.float32  # a 0-d tensor: a lower tier
    assert K.add(x, t(np.array([2.0]))).dtype == np.float64
    assert K.add(t(np.array(1.0, np.float32)), t(np.array(2.0))).dtype == np.float64
    assert K.mul(x, K.scalar_like(x, 2.0)).dtype == np.float32


def test_div_and_pow():
    close(K.div(t([1, 2, 3]), t([2, 2, 2])), np.array([0.5, 1.0, 1.5], np.float32))
    a, b = np.abs(randn(3, 1)) + 0.1, randn(4)
    close(K.pow(t(a), t(b)), a ** b)
    assert K.pow(t([2, 3]), t([2])).detach().numpy().tolist() == [4, 9]
    # an integer to a negative integer power: C's (torch's) 0, or the power of 1 or -1
    assert K.pow(t([2, 1, -1, -1]), t([-1, -5, -3, -2])).detach().numpy().tolist() == [0, 1, -1, 1]
    with pytest.raises(RuntimeError, match="two bool tensors"):
        K.sub(t([True]), t([False]))
    with pytest.raises(RuntimeError, match="with a bool tensor"):
        K.sub(t([1.0]), t([False]))


def test_where_and_logical_not():
    c = rng.random((2, 1, 3)) > 0.5
    a, b = randn(4, 1), randn(3).astype(np.float32)
    close(K.where(t(c), t(a), t(b)), np.where(c, a, b.astype(np.float64)))
    with pytest.raises(ValueError, match="bool"):
        K.where(t([1, 0]), t(a), t(b))
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        K.where(t(np.ones((5,), bool)), t(a), t(b))
    assert K.logical_not(t([0.0, 2.0])).detach().numpy().tolist() == [True, False]


# ---------------------------------------------------------------------------------------------
# Creation


def test_creation():
    close(K.full((2, 3), 1.5, "float32"), np.full((2, 3), 1.5, np.float32))
    x = t(randn(2, 3, dtype=np.float32))
    close(K.zeros_like(x), np.zeros((2, 3), np.float32))
    close(K.ones_like(x), np.ones((2, 3), np.float32))
    assert K.scalar_like(x, 3).dtype == np.float32 and K.scalar_like(x, 3).shape == ()
    i = t([1, 2])
    assert K.scalar_like(i, 3).dtype == np.int64
    assert K.scalar_like(i, 3.5).dtype == np.float32  # the default dtype
    with pytest.raises(ValueError, match="negative"):
        K.full((2, -1), 0.0, "float64")


# ---------------------------------------------------------------------------------------------
# Reductions


@pytest.mark.parametrize("name, fn", [("sum", np.sum), ("amax", np.amax), ("amin", np.amin)])
@pytest.mark.parametrize("dims", [(), (0,), (-1,), (0, 2), (-1, -3)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reduction_over_exactly_dims(name, fn, dims, keepdim):
    a = randn(2, 3, 4)
    axes = tuple(d % 3 for d in dims)
    close(getattr(K, name)(t(a), dims, keepdim), fn(a, axis=axes, keepdims=keepdim))


def test_reduction_errors_and_dtypes():
    x = t(randn(2, 3))
    with pytest.raises(IndexError, match="out of range"):
        K.sum(x, (2,), False)
    with pytest.raises(RuntimeError, match="dim 1 appears multiple times in the list of dims"):
        K.sum(x, (1, -1), False)
    with pytest.raises(IndexError, match=r"amax\(\): Expected reduction dim 1 to have non-zero"):
        K.amax(t(np.ones((2, 0))), (1,), False)
    with pytest.raises(RuntimeError, match="Expected reduction dim to be specified"):
        K.amax(t(np.ones((2, 0))), (0, 1), False)
    assert K.sum(t([True, True]), (0,), False).dtype == np.int64
    assert K.sum(t(randn(3, dtype=np.float32)), (0,), False).dtype == np.float32
    close(K.sum(t(np.array(2.0)), (0,), False), np.array(2.0))  # 0-d accepts dim 0


@pytest.mark.parametrize("name, arg", [("max_dim", np.argmax), ("min_dim", np.argmin)])
@pytest.mark.parametrize("dim, keepdim", [(1, False), (-1, True), (0, False)])
def test_max_min_dim(name, arg, dim, keepdim):
    a = randn(3, 4)
    values, indices = getattr(K, name)(t(a), dim, keepdim)
    idx = np.expand_dims(arg(a, axis=dim), dim)
    exp_v = np.take_along_axis(a, idx, axis=dim)
    if not keepdim:
        exp_v, idx = np.squeeze(exp_v, dim), np.squeeze(idx, dim)
    close(values, exp_v)
    close(indices, idx.astype(np.int64))


def test_max_dim_ties_take_the_first_index():
    _, indices = K.max_dim(t([[1.0, 3.0, 3.0]]), 1, False)
    assert indices.detach().numpy().tolist() == [1]


def _logsumexp(a, axes, keepdims):
    m = np.max(a, axis=axes, keepdims=True)
    out = np.log(np.sum(np.exp(a - m), axis=axes, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axes)


@pytest.mark.parametrize("dims, keepdim", [((1,), False), ((0, -1), True), ((), False)])
def test_logsumexp(dims, keepdim):
    a = randn(2, 3, 4)
    close(K.logsumexp(t(a), dims, keepdim), _logsumexp(a, tuple(d % 3 for d in dims), keepdim))


def test_logsumexp_softmax_are_stable():
    a = np.array([[1000.0, 1000.0], [-1000.0, -1000.0], [-np.inf, -np.inf]])
    close(K.logsumexp(t(a), (1,), False), [1000.0 + math.log(2), -1000.0 + math.log(2), -np.inf])
    close(K.softmax(t(a[:2]), 1), np.full((2, 2), 0.5))
    close(K.log_softmax(t(a[:2]), -1), np.full((2, 2), -math.log(2)))


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_softmax_and_log_softmax(dim, dtype):
    a = randn(3, 4, dtype=dtype)
    e = np.exp(a.astype(np.float64))
    sm = e / e.sum(axis=dim, keepdims=True)
    close(K.softmax(t(a), dim), sm.astype(dtype), dtype)
    close(K.log_softmax(t(a), dim), np.log(sm).astype(dtype), dtype)


@pytest.mark.parametrize("shape, target", [((2, 3, 4), (3, 4)), ((2, 3, 4), (3, 1)),
                                           ((2, 3, 4), ()), ((3, 4), (3, 4)), ((3, 1), (1, 1))])
def test_sum_to(shape, target):
    a = randn(*shape)
    expected = np.broadcast_to(np.zeros(target), shape)
    lead = len(shape) - len(target)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(target)
                                      if s == 1 and shape[lead + i] != 1)
    close(K.sum_to(t(a), target), a.sum(axis=axes, keepdims=True).reshape(target))
    assert expected.shape == shape


def test_sum_to_error_names_both_shapes():
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4,\)"):
        K.sum_to(t(randn(2, 3)), (4,))


# ---------------------------------------------------------------------------------------------
# Shape and views


def assert_view(out, base):
    assert np.shares_memory(out.detach().numpy(), base.detach().numpy())
    assert out._vc is base._vc


def test_view_kernels_share_storage_and_version():
    x = t(randn(2, 3, 4))
    for out in (K.reshape(x, (6, -1)), K.expand(K.unsqueeze(x, 0), (5, 2, 3, 4)),
                K.permute(x, (2, 0, -2)), K.transpose(x, 0, -1), K.unsqueeze(x, -1),
                K.squeeze(K.unsqueeze(x, 1), (1,)), K.slice(x, 1, 0, 2, 1),
                K.select(x, -1, 2), K.select(K.select(K.select(x, 0, 0), 0, 0), 0, 0),
                K.contiguous(x)):
        assert_view(out, x)
    assert K.select(K.select(K.select(x, 0, 1), 0, 2), 0, 3).shape == ()


def test_copies_are_fresh():
    x = t(randn(2, 3))
    for out in (K.clone(x), K.contiguous(K.transpose(x, 0, 1)), K.reshape(K.transpose(x, 0, 1),
                                                                         (6,))):
        assert not np.shares_memory(out.detach().numpy(), x.detach().numpy())
        assert out._vc is not x._vc


def test_shape_kernels_match_numpy():
    a, b, c = randn(2, 3, 4), randn(2, 3, 4), randn(3, 1)
    x = t(a)
    close(K.reshape(x, (4, -1)), a.reshape(4, 6))
    close(K.expand(t(c), (2, 3, -1)), np.broadcast_to(c, (2, 3, 1)))
    close(K.expand(t(c), (3, 5)), np.broadcast_to(c, (3, 5)))
    close(K.permute(x, (-1, 0, 1)), a.transpose(2, 0, 1))
    close(K.transpose(x, -1, 0), a.swapaxes(2, 0))
    close(K.unsqueeze(x, -1), a[..., None])
    close(K.squeeze(t(c[None]), (0, -1)), c[:, 0])
    close(K.slice(x, -1, -3, None, 2), a[..., -3::2])
    close(K.slice(x, 1, None, 100, 1), a)
    close(K.select(x, 1, -1), a[:, -1])
    close(K.cat([x, t(b[:, :1])], 1), np.concatenate([a, b[:, :1]], 1))
    close(K.cat([x, t(b)], -3), np.concatenate([a, b], 0))
    close(K.stack([x, t(b)], -1), np.stack([a, b], -1))


def test_cat_promotes_and_squeeze_ignores_non_unit_dims():
    out = K.cat([t([1.0], "float32"), t([2], "int64")], 0)
    assert out.dtype == np.float32 and out.detach().numpy().tolist() == [1.0, 2.0]
    assert K.squeeze(t(randn(2, 1)), (0, 1)).shape == (2,)


@pytest.mark.parametrize("call, error, pattern", [
    (lambda x: K.reshape(x, (5, -1)), RuntimeError, r"shape '\[5, -1\]' is invalid for input "
                                                    "of size 24"),
    (lambda x: K.expand(x, (2, 5, 4)), RuntimeError,
     r"The expanded size of the tensor \(5\) must match the existing size \(3\) at "
     r"non-singleton dimension 1.  Target sizes: \[2, 5, 4\].  Tensor sizes: \[2, 3, 4\]"),
    (lambda x: K.permute(x, (0, 0, 1)), ValueError, "permutation"),
    (lambda x: K.transpose(x, 0, 3), IndexError, "out of range"),
    (lambda x: K.unsqueeze(x, 4), IndexError, "out of range"),
    (lambda x: K.slice(x, 0, 0, 2, 0), ValueError, "step"),
    (lambda x: K.select(x, 1, 3), IndexError, "out of range"),
    (lambda x: K.cat([x, t(np.zeros((2, 2, 2)))], 0), RuntimeError,
     "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 2 for "
     "tensor number 1 in the list."),
    (lambda x: K.stack([x, t(np.zeros((2, 3)))], 0), RuntimeError,
     r"stack expects each tensor to be equal size, but got \[2, 3, 4\] at entry 0 and \[2, 3\] "
     "at entry 1"),
    (lambda x: K.cat([], 0), ValueError, "non-empty"),
])
def test_shape_errors(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call(t(randn(2, 3, 4)))


# ---------------------------------------------------------------------------------------------
# Indexing


def test_index_select_and_index_add():
    a = randn(5, 3)
    idx = np.array([4, 4, 0, 0])
    close(K.index_select(t(a), 0, t(idx)), a[[4, 4, 0, 0]])
    close(K.index_select(t(a), -1, t([2, 0])), a[:, [2, 0]])
    src = randn(4, 3)
    expected = a.copy()
    np.add.at(expected, [4, 4, 0, 0], src)
    close(K.index_add(t(a), 0, t(idx), t(src)), expected)
    with pytest.raises(IndexError, match="out of bounds for dimension 0 with size 5"):
        K.index_select(t(a), 0, t([5]))
    with pytest.raises(IndexError, match="index -1 is out of bounds"):  # as torch: no wrapping
        K.index_select(t(a), 0, t([-1]))
    with pytest.raises(ValueError, match="int64"):
        K.index_select(t(a), 0, t([0.0]))
    with pytest.raises(ValueError, match=r"source.shape = \[3, 3\]"):
        K.index_add(t(a), 0, t(idx), t(randn(3, 3)))


def test_gather_and_scatter_add():
    a = randn(3, 4)
    idx = np.array([[0, 3], [3, 1], [2, 2]])
    close(K.gather(t(a), 1, t(idx)), np.take_along_axis(a, idx % 4, axis=1))
    idx0 = np.array([[2, 0, 1, 1], [0, 0, 0, 0]])
    close(K.gather(t(a), -2, t(idx0)), np.take_along_axis(a, idx0, axis=0))
    src = randn(3, 2)
    expected = a.copy()
    for i in range(3):
        for j in range(2):
            expected[i, idx[i, j] % 4] += src[i, j]
    close(K.scatter_add(t(a), 1, t(idx), t(src)), expected)
    big = randn(3, 5)  # a source larger than the index: only its leading part is used
    close(K.scatter_add(t(a), 1, t(idx), t(big)), a + K.scatter_add(
        t(np.zeros((3, 4))), 1, t(idx), t(big[:, :2])).detach().numpy())
    with pytest.raises(IndexError, match="out of bounds for dimension 1 with size 4"):
        K.gather(t(a), 1, t([[4]]))
    # As torch, gather and scatter_add do not wrap negative indices (index_select does: Python
    # indexing reaches it with them).
    with pytest.raises(IndexError, match="index -1 is out of bounds"):
        K.gather(t(a), 1, t([[-1]]))
    with pytest.raises(IndexError, match="index -1 is out of bounds"):
        K.scatter_add(t(a), 1, t([[-1]]), t([[1.0]]))
    with pytest.raises(ValueError, match="same number of dimensions"):
        K.gather(t(a), 1, t([0]))


def test_slice_and_select_scatter():
    a, src = randn(5, 4), randn(5, 2)
    expected = a.copy()
    expected[:, 1::2] = src
    close(K.slice_scatter(t(a), t(src), -1, 1, None, 2), expected)
    expected = a.copy()
    expected[-2] = src[:, 0].repeat(2)[:4]
    close(K.select_scatter(t(a), t(expected[-2]), 0, -2), expected)
    with pytest.raises(ValueError, match=r"\(5, 3\)"):
        K.slice_scatter(t(a), t(randn(5, 3)), 1, 0, 2, 1)
    with pytest.raises(ValueError, match=r"\(5,\)"):
        K.select_scatter(t(a), t(randn(5)), 0, 0)
    assert K.slice_scatter(t(a), t(src), 1, 0, 2, 1)._vc is not None


def test_scatter_kernels_do_not_mutate_their_inputs():
    a = randn(3, 4)
    x = t(a.copy())
    K.index_add(x, 0, t([0]), t(np.ones((1, 4))))
    K.scatter_add(x, 1, t([[0], [1], [2]]), t(np.ones((3, 1))))
    K.slice_scatter(x, t(np.ones((3, 2))), 1, 0, 2, 1)
    K.select_scatter(x, t(np.ones(4)), 0, 1)
    np.testing.assert_array_equal(x.detach().numpy(), a)


# ---------------------------------------------------------------------------------------------
# Linear algebra and reading data


@pytest.mark.parametrize("sa, sb", [((3, 4), (4, 5)), ((2, 3, 4), (4, 2)),
                                    ((2, 1, 3, 4), (5, 4, 2))])
def test_matmul(sa, sb):
    a, b = randn(*sa), randn(*sb)
    close(K.matmul(t(a), t(b)), np.matmul(a, b))


def test_matmul_keeps_float32_and_reports_shapes():
    a, b = randn(3, 4, dtype=np.float32), randn(4, 2, dtype=np.float32)
    assert K.matmul(t(a), t(b)).dtype == np.float32
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied "
                                           r"\(3x4 and 3x4\)"):
        K.matmul(t(a), t(a))
    with pytest.raises(ValueError, match="at least 2"):
        K.matmul(t(a[0]), t(b))
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match the size of "
                                           r"tensor b \(3\) at non-singleton dimension 0"):
        K.matmul(t(randn(2, 3, 4)), t(randn(3, 4, 2)))


def test_item():
    assert K.item(t([[2.5]])) == 2.5 and isinstance(K.item(t([3])), float)
    with pytest.raises(ValueError, match=r"\(2,\)"):
        K.item(t([1.0, 2.0]))


def test_kernels_never_mutate_and_return_fresh_tensors():
    a = randn(3, 4)
    x = t(a.copy())
    for name in ("exp", "neg", "clone", "relu"):
        out = getattr(K, name)(x)
        assert out is not x
    assert K.contiguous(x) is not x
    np.testing.assert_array_equal(x.detach().numpy(), a)


# ---------------------------------------------------------------------------------------------
# Properties over random shapes (hypothesis)

hypothesis = pytest.importorskip("hypothesis")
hnp = pytest.importorskip("hypothesis.extra.numpy")
st = hypothesis.strategies
DTYPES = ["bool", "int64", "float32", "float64"]


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=3),
                  dtypes=st.tuples(st.sampled_from(DTYPES), st.sampled_from(DTYPES)),
                  name=st.sampled_from(["add", "mul", "maximum", "lt", "eq"]))
def test_binary_broadcast_and_promotion_property(shapes, dtypes, name):
    a = (rng.standard_normal(shapes.input_shapes[0]) * 3).astype(dtypes[0])
    b = (rng.standard_normal(shapes.input_shapes[1]) * 3).astype(dtypes[1])
    out = getattr(K, name)(t(a), t(b))
    assert out.shape == shapes.result_shape
    want = max(dtypes, key=DTYPES.index)
    # torch's tiers: a 0-d operand does not lift a dimensioned one of its own kind
    # (float64 0-d + float32 vector is float32); of another kind it does (int vector -> float)
    kind = {"bool": 0, "int64": 1, "float32": 2, "float64": 2}
    for mine, other, mine_shape in ((0, 1, shapes.input_shapes[0]), (1, 0, shapes.input_shapes[1])):
        other_shape = shapes.input_shapes[other]
        if (mine_shape == () and other_shape != () and kind[dtypes[mine]] == kind[dtypes[other]]
                and dtypes[mine] == want):
            want = dtypes[other]
    assert out.dtype == (np.bool_ if name in COMPARISONS else np.dtype(want))
    ref = BINARY[name](a.astype(want), b.astype(want))
    if want == "bool" and name == "add":
        ref = np.logical_or(a, b)
    np.testing.assert_array_equal(out.detach().numpy(), ref)


@hypothesis.settings(max_examples=60, deadline=None)
@hypothesis.given(shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=3),
                  data=st.data(), keepdim=st.booleans())
def test_reductions_property(shape, data, keepdim):
    a = rng.standard_normal(shape)
    nd = len(shape)
    dims = data.draw(st.lists(st.integers(0, nd - 1), unique=True, max_size=nd) if nd else
                     st.just([]))
    dims = tuple(d - nd if data.draw(st.booleans()) else d for d in dims)
    axes = tuple(d % nd for d in dims)
    for name, fn in (("sum", np.sum), ("amax", np.amax), ("amin", np.amin)):
        close(getattr(K, name)(t(a), dims, keepdim), fn(a, axis=axes, keepdims=keepdim))
    close(K.logsumexp(t(a), dims, keepdim), _logsumexp(a, axes, keepdim) if axes else a)
