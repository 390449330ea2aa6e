"""Advanced indexing as torch's (issue 11): several integer/bool index arrays in one
expression, ``x[...] = v`` through them, ``index_put``/``index_put_`` with ``accumulate``, and
the hostile inputs a user can hand them; on both engines, against numpy for values, gradcheck
and gradgradcheck for gradients, compiled against reference (hypothesis), and torch where
installed."""

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

A3 = np.arange(4 * 3 * 5, dtype=np.float64).reshape(4, 3, 5)

# Indices where torch's rule is numpy's (no int beside a separated array): values against numpy.
NUMPY_CASES = [
    ([0, 2], [1, 1]), ([[1, 2], [3, 0]], [[0, 1], [2, 2]]), (slice(None), [0, 2], [1, 4]),
    ([1, 3], slice(None), [0, 4]),  # separated by a slice: the index dims first
    ([1, 2], [0, 1], Ellipsis), (Ellipsis, [1, 2], [0, 1]), ([[0], [3]], [0, 2, 1]),
    ([-1, -4], [-3, 2]), (A3 > 30,), (slice(None), A3[0] > 7), ([0, 0, 0], [2], [4]),
    (None, [1, 2], slice(None), [3, 4]), ([], []), (np.array([2, 0]), slice(1, 3), [1]),
    (A3[:, 0, 0] > 20, slice(None), [4, 0]), (slice(None), slice(None), [True] * 2 + [False] * 3),
]


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("index", NUMPY_CASES, ids=[repr(c)[:50] for c in NUMPY_CASES])
def test_advanced_getitem_matches_numpy(engine, index):
    x = engine.tensor(A3)
    got = x[index]
    expected = A3[index]
    assert tuple(got.shape) == expected.shape
    np.testing.assert_array_equal(_np(got), expected)


def test_ints_are_selects_as_torch(engine):
    # torch applies an int as a select first: x[0, :, [1, 2]] indexes the (3, 5) view
    x = engine.tensor(A3)
    np.testing.assert_array_equal(_np(x[0, :, [1, 2]]), A3[0][:, [1, 2]])
    np.testing.assert_array_equal(_np(x[[0, 1], 1, [2, 3]]), A3[:, 1][[0, 1], [2, 3]])
    np.testing.assert_array_equal(_np(x[1, [0, 1], [2, 3]]), A3[1][[0, 1], [2, 3]])


def test_sequences_as_tuples_as_torch(engine):
    # a short list holding lists is a tuple of indices (Note [Index sequences])
    x = engine.tensor(A3[:, 0])
    np.testing.assert_array_equal(_np(x[[[0, 3], [2, 2]]]), A3[:, 0][[0, 3], [2, 2]])
    np.testing.assert_array_equal(_np(x[[0, 3]]), A3[:, 0][[0, 3]])
    y = engine.tensor(np.arange(10.0))
    np.testing.assert_array_equal(_np(y[[[0, 4, 2]]]), [0.0, 4.0, 2.0])


def test_index_tensor_dtypes(engine):
    tg = engine
    x = tg.tensor(A3)
    for dt in (tg.int64, tg.int32):
        i = tg.tensor([3, -1], dtype=dt)
        np.testing.assert_array_equal(_np(x[i, [0, 2]]), A3[[3, -1], [0, 2]])
    m = tg.tensor([1, 0, 1, 0], dtype=tg.uint8)  # a uint8 tensor is a mask, as torch's legacy
    np.testing.assert_array_equal(_np(x[m]), A3[[0, 2]])
    np.testing.assert_array_equal(_np(x[tg.tensor(2)]), A3[2])
    assert tuple(x[True].shape) == (1, 4, 3, 5) and tuple(x[False].shape) == (0, 4, 3, 5)
    # a Python bool is a new dim indexed by [0] or []: an advanced index like any other
    assert tuple(x[True, [0, 1]].shape) == (2, 3, 5)
    assert tuple(x[[0, 1], True].shape) == (2, 3, 5)
    assert tuple(x[True, :, [0, 1]].shape) == (2, 4, 5)
    assert tuple(x[None, ..., True].shape) == (1, 4, 3, 5, 1)
    with pytest.raises(IndexError, match="shape mismatch"):
        x[False, [0, 1]]
    y = x * 1.0
    y[True, [1, 2]] = -1.0
    expected = A3.copy()
    expected[[1, 2]] = -1.0
    np.testing.assert_array_equal(_np(y), expected)


def test_gradients_accumulate_duplicates(engine):
    tg = engine
    x = tg.tensor(A3, requires_grad=True)
    idx = ([1, 1, 3, 1], slice(None), [4, 4, 0, 4])
    x[idx].sum().backward()
    expected = np.zeros_like(A3)
    np.add.at(expected, idx, 1.0)
    np.testing.assert_array_equal(_np(x.grad), expected)
    assert x[[0, 1], [1, 2]].grad_fn.name() == "IndexBackward0"


GRAD_CASES = [
    ([0, 2, 0], [1, 1, 1]), (slice(None), [[0, 2], [2, 2]], [1, -1]), ([1, 3], slice(1, 3), [0, 4]),
    (A3 > 40,), (1, slice(None), [2, 2, 0]),
]


@pytest.mark.parametrize("index", GRAD_CASES, ids=[repr(c)[:40] for c in GRAD_CASES])
def test_getitem_gradcheck(engine, index):
    tg = engine
    x = tg.tensor(np.random.default_rng(0).standard_normal(A3.shape), requires_grad=True)
    assert tg.autograd.gradcheck(lambda t: t[index] * 1.5, (x,))
    assert tg.autograd.gradgradcheck(lambda t: t[index] ** 2, (x,))


def test_setitem_gradients_to_x_and_value(engine):
    tg = engine
    for index in [([0, 2], [1, 1]), (slice(None), [1, 2], [0, 4]), ([1, 3], slice(None), [0, 4]),
                  (1, [0, 2]), (A3 > 50,)]:
        x = tg.tensor(np.ones(A3.shape), requires_grad=True)
        y = x + 2
        shape = A3[1][[0, 2]].shape if isinstance(index[0], int) else A3[index].shape
        value = tg.tensor(np.full(shape, 7.0), requires_grad=True)
        v0 = y._version
        y[index] = value
        assert y._version != v0
        expected_y = np.full(A3.shape, 3.0)
        expected_y[index] = 7.0
        np.testing.assert_array_equal(_np(y), expected_y)
        w = np.random.default_rng(1).standard_normal(A3.shape)
        y.backward(tg.tensor(w))
        gx = w.copy()
        gx[index] = 0.0
        np.testing.assert_array_equal(_np(x.grad), gx)
        np.testing.assert_array_equal(_np(value.grad), w[index])


def test_setitem_scalar_and_broadcast(engine):
    tg = engine
    for index, value in [(([0, 2], [1, 1]), 5.0), ((slice(None), [0, 2], [1, 4]), [1.0, 2.0]),
                         (([[1], [3]], [0, 2, 1]), [[[9.0], [8.0], [7.0]]]), ((A3 > 55,), -1.0)]:
        for grad in (False, True):
            a = A3.copy()
            x = tg.tensor(a, requires_grad=grad)
            y = x * 1.0
            y[index] = tg.tensor(np.asarray(value)) if isinstance(value, list) else value
            a[index] = value
            np.testing.assert_array_equal(_np(y), a)


def test_setitem_value_grad_through_gradcheck(engine):
    tg = engine
    rng = np.random.default_rng(2)
    x = tg.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    v = tg.tensor(rng.standard_normal(3), requires_grad=True)

    def f(x, v):
        y = x * 1.0
        y[[0, 3, 2], [2, 0, 1]] = v * 2.0
        return y

    assert tg.autograd.gradcheck(f, (x, v))
    assert tg.autograd.gradgradcheck(f, (x, v))
    y = f(x, v)
    assert y.grad_fn.name() == "IndexPutBackward0"


def test_index_put_accumulate(engine):
    tg = engine
    rng = np.random.default_rng(3)
    a = rng.standard_normal((5, 4))
    x = tg.tensor(a, requires_grad=True)
    rows, cols = tg.tensor([1, 1, 4, 1]), tg.tensor([0, 0, 3, 2])
    v = tg.tensor(rng.standard_normal(4), requires_grad=True)
    out = tg.index_put(x, (rows, cols), v, accumulate=True)
    expected = a.copy()
    np.add.at(expected, ([1, 1, 4, 1], [0, 0, 3, 2]), _np(v))
    np.testing.assert_allclose(_np(out), expected)
    assert tg.autograd.gradcheck(lambda x, v: tg.index_put(x, (rows, cols), v, True), (x, v))
    assert tg.autograd.gradgradcheck(lambda x, v: tg.index_put(x, (rows, cols), v, True),
                                     (x, v))
    # a None entry is a whole dim; values broadcast
    out = tg.index_put(x, (None, tg.tensor([3, 0])), tg.tensor(1.0, dtype=x.dtype))
    expected = a.copy()
    expected[:, [3, 0]] = 1.0
    np.testing.assert_array_equal(_np(out), expected)
    # in place, without autograd: duplicates sum
    z = tg.zeros(5)
    z.index_put_((tg.tensor([1, 1, 3]),), tg.tensor([1.0, 2.0, 4.0]), accumulate=True)
    np.testing.assert_array_equal(_np(z), [0, 3, 0, 4, 0])
    z.index_put_((tg.tensor([0]),), tg.tensor(5.0))
    np.testing.assert_array_equal(_np(z), [5, 3, 0, 4, 0])


def test_hostile_indices(engine):
    tg = engine
    x = tg.tensor(A3, requires_grad=True)
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or "
                                         "bool tensors"):
        x[tg.tensor([1.0])]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or "
                                         "bool tensors"):
        x[[0.5, 1.5]]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or "
                                         "bool tensors"):
        x[tg.tensor([1], dtype=tg.int16)]
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 4"):
        x[[5, 0]]
    with pytest.raises(IndexError, match="index 9 is out of bounds for dimension 1 with size 5"):
        x[[0], :, [9]]
    with pytest.raises(IndexError, match="index -6 is out of bounds for dimension 0 with size 5"):
        x[:, :, [-6]]
    with pytest.raises(IndexError, match=f"index {2**62} is out of bounds"):
        x[[2**62], [0]]
    with pytest.raises(IndexError, match=r"shape mismatch: indexing tensors could not be "
                                         r"broadcast together with shapes \[2\], \[3\]"):
        x[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match=r"The shape of the mask \[3\] at index 0 does not match"):
        x[tg.tensor([True, False, True])]
    with pytest.raises(IndexError):
        x[[2**70]]
    with pytest.raises(IndexError, match="too many indices"):
        x[[0], [0], [0], [0]]
    assert tuple(x[[], []].shape) == (0, 5)
    assert tuple(x[tg.tensor([], dtype=tg.int64)].shape) == (0, 3, 5)
    y = x * 1.0
    with pytest.raises(RuntimeError, match=r"shape mismatch: value tensor of shape \[3\] cannot "
                                           r"be broadcast to indexing result of shape \[2, 5\]"):
        y[[0, 1], [1, 2]] = tg.ones(3)
    with pytest.raises(IndexError, match="out of bounds"):
        y[[0, 7], [1, 2]] = 1.0
    with tg.no_grad():
        with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 0"):
            y[[0, 7], [1, 2]] = 1.0
        with pytest.raises(RuntimeError, match="shape mismatch"):
            y[[0, 1], [1, 2]] = tg.ones(3)
    np.testing.assert_array_equal(_np(y), A3)  # nothing was written by the failures


def test_gather_and_scatter_add_zero_dim(engine):
    # torch counts a 0-d tensor as 1-D in gather/scatter_add
    tg = engine
    x = tg.tensor(np.arange(10.0), requires_grad=True)
    out = tg.gather(x, 0, tg.tensor(3))
    assert tuple(out.shape) == () and float(out) == 3.0
    out.backward(tg.tensor(2.0))
    expected = np.zeros(10)
    expected[3] = 2.0
    np.testing.assert_array_equal(_np(x.grad), expected)
    s = tg.tensor(5.0, requires_grad=True)
    out = tg.gather(s, 0, tg.zeros(2, dtype=tg.int64))
    assert tuple(out.shape) == (2,)
    out.backward(tg.tensor([1.0, 2.0]))
    assert float(s.grad) == 3.0
    z = tg.zeros(10).scatter_add(0, tg.tensor(4), tg.tensor(1.5))
    assert float(z[4]) == 1.5 and float(z.sum()) == 1.5
    assert float(tg.gather(tg.tensor(7.0), 0, tg.tensor(0))) == 7.0
    with pytest.raises(IndexError, match="out of bounds"):
        tg.gather(x, 0, tg.tensor(10))


def _draw_index(data, shape):
    """A random torch index for ``shape``: ints, slices, None, Python bools, Ellipsis, integer
    arrays (with negatives and duplicates, broadcastable), bool masks."""
    index = []
    dim = 0
    ell = False
    bshape = data.draw(st.sampled_from([(1,), (2,), (3,), (2, 1), (1, 3)]), label="bshape")
    while dim < len(shape):
        size = shape[dim]
        kind = data.draw(st.sampled_from(["int", "slice", "none", "array", "array", "mask",
                                          "ellipsis", "bool"]))
        if kind == "int":
            index.append(data.draw(st.integers(-size, size - 1)))
            dim += 1
        elif kind == "slice":
            start = data.draw(st.one_of(st.none(), st.integers(-size - 1, size + 1)))
            index.append(slice(start, None, data.draw(st.integers(1, 2))))
            dim += 1
        elif kind == "none":
            index.append(None)
        elif kind == "bool":
            index.append(data.draw(st.sampled_from([True, True, False])))
        elif kind == "array":
            n = int(np.prod(bshape))
            vals = data.draw(st.lists(st.integers(-size, size - 1), min_size=n, max_size=n))
            index.append(np.array(vals, dtype=np.int64).reshape(bshape))
            dim += 1
        elif kind == "mask":
            bits = data.draw(st.lists(st.booleans(), min_size=size, max_size=size))
            index.append(np.array(bits))
            dim += 1
        elif not ell:
            ell = True
            index.append(Ellipsis)
            dim += data.draw(st.integers(0, len(shape) - dim))
    return tuple(index)


@settings(max_examples=80, deadline=None, derandomize=True)
@given(data=st.data())
def test_random_advanced_indexing_compiled_matches_reference(data):
    import transgrad as tc
    import transgrad.reference as tr

    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3), label="shape"))
    a = np.random.default_rng(0).standard_normal(shape)
    index = _draw_index(data, shape)
    results = []
    for tg in (tc, tr):
        x = tg.tensor(a, requires_grad=True)
        tindex = tuple(tg.tensor(i) if isinstance(i, np.ndarray) else i for i in index)
        try:
            out = x[tindex]
        except IndexError as e:  # masks whose nonzero counts do not broadcast with an array
            results.append(("IndexError", str(e).split(" (")[0]))
            continue
        w = np.random.default_rng(1).standard_normal(tuple(out.shape))
        (out * tg.tensor(w)).sum().backward()
        y = tg.tensor(a) * 1.0
        y[tindex] = tg.tensor(w) * 2.0
        results.append((_np(out), _np(x.grad), _np(y)))
    if isinstance(results[0][0], str):
        assert results[0] == results[1]
        return
    for got, want in zip(results[0], results[1]):
        np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(data=st.data())
def test_random_advanced_indexing_matches_torch(data):
    torch = pytest.importorskip("torch")
    import transgrad as tg

    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3), label="shape"))
    a = np.random.default_rng(0).standard_normal(shape)
    index = _draw_index(data, shape)
    xt = torch.tensor(a, requires_grad=True)
    try:
        want = xt[tuple(torch.tensor(i) if isinstance(i, np.ndarray) else i for i in index)]
    except IndexError:
        with pytest.raises(IndexError):
            tg.tensor(a)[tuple(tg.tensor(i) if isinstance(i, np.ndarray) else i for i in index)]
        return
    x = tg.tensor(a, requires_grad=True)
    got = x[tuple(tg.tensor(i) if isinstance(i, np.ndarray) else i for i in index)]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(_np(got), want.detach().numpy())
    w = np.random.default_rng(1).standard_normal(tuple(want.shape))
    (want * torch.tensor(w)).sum().backward()
    (got * tg.tensor(w)).sum().backward()
    np.testing.assert_allclose(_np(x.grad), xt.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_setitem_and_index_put_match_torch():
    torch = pytest.importorskip("torch")
    import transgrad as tg

    rng = np.random.default_rng(4)
    a = rng.standard_normal((4, 3, 5))
    for index in [([0, 2], [1, 1]), (slice(None), [1, 2], [0, 4]), (0, slice(None), [1, 3]),
                  ([1, 3], slice(None), [0, 4]), ([[0], [2]], [1, 2], 3)]:
        xt = torch.tensor(a, requires_grad=True)
        yt = xt * 1.0
        vshape = tuple(yt[index].shape)
        v = rng.standard_normal(vshape)
        vt = torch.tensor(v, requires_grad=True)
        yt[index] = vt
        w = rng.standard_normal(a.shape)
        yt.backward(torch.tensor(w))
        x = tg.tensor(a, requires_grad=True)
        y = x * 1.0
        vg = tg.tensor(v, requires_grad=True)
        y[index] = vg
        y.backward(tg.tensor(w))
        np.testing.assert_array_equal(_np(y), yt.detach().numpy())
        np.testing.assert_array_equal(_np(x.grad), xt.grad.numpy())
        np.testing.assert_array_equal(_np(vg.grad), vt.grad.numpy())
    idx = [torch.tensor([1, 1, 0]), torch.tensor([2, 2, 4])]
    vt = torch.tensor([1.0, 2.0, 3.0])
    want = torch.index_put(torch.zeros(3, 5), tuple(idx), vt, accumulate=True)
    got = tg.index_put(tg.zeros(3, 5), (tg.tensor([1, 1, 0]), tg.tensor([2, 2, 4])),
                       tg.tensor([1.0, 2.0, 3.0]), accumulate=True)
    np.testing.assert_array_equal(_np(got), want.numpy())


def test_hostile_sizes_fail_fast(engine):
    # an expanded (stride 0) index of 2**40 entries: a clear MemoryError or IndexError at once,
    # never a loop over every entry
    tg = engine
    if os.environ.get("TG_SANITIZER") == "address" and tg.__name__ == "transgrad":
        pytest.skip("under ASan a C++ allocation it cannot make aborts the process (operator "
                    "new never returns null there) instead of raising std::bad_alloc")
    x = tg.randn(3, 4)
    huge = tg.zeros(1, dtype=tg.int64).expand(2**40)
    with pytest.raises(MemoryError):
        x[huge, huge]
    with tg.no_grad():
        with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 0"):
            x[tg.full((1,), 7, dtype=tg.int64).expand(2**40)] = 1.0


def test_put_dtypes(engine):
    tg = engine
    b = tg.zeros(4, dtype=tg.bool)
    b.index_put_((tg.tensor([1, 1]),), tg.ones(2, dtype=tg.bool), accumulate=True)
    assert _np(b).tolist() == [False, True, False, False]
    h = tg.zeros(4, dtype=tg.float16)
    h.index_put_((tg.tensor([1, 1, 3]),), tg.ones(3, dtype=tg.float16), accumulate=True)
    assert _np(h).tolist() == [0.0, 2.0, 0.0, 1.0]
    h[[0, 2]] = 5.0
    assert _np(h).tolist() == [5.0, 2.0, 5.0, 1.0]
    i = tg.tensor([[1, 2], [3, 4]])
    assert _np(i[[1, 0], [0, 1]]).tolist() == [3, 2]
    with pytest.raises(RuntimeError, match="Index put requires the source and destination "
                                           "dtypes match"):
        tg.zeros(3).index_put_((tg.tensor([0]),), tg.ones(1, dtype=tg.float64))
