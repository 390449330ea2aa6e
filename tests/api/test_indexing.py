"""``__getitem__``/``__setitem__`` against numpy's indexing, including random indices
(hypothesis), and their gradients."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

A = np.arange(2 * 3 * 4, dtype=np.float64).reshape(2, 3, 4)

CASES = [
    0, -1, (1, 2), (1, -1, 3), slice(None), slice(1, None), (slice(None), 1),
    (slice(None, None, 2), slice(1, 3)), (Ellipsis, 1), (None, 0), (0, None, slice(1, 3)),
    (slice(None), None, 2), Ellipsis, (Ellipsis, None), [1, 0], (slice(None), [2, 0, 2]),
    (slice(None), slice(None), [[0, 1], [3, 3]]), (1, [0, 2]), np.array([1]),
    A > 10, (0, A[0] > 3), (slice(None), slice(None, None, 3), -1),
]


@pytest.mark.parametrize("index", CASES, ids=[repr(c)[:40] for c in CASES])
def test_getitem_matches_numpy(engine, index):
    tg = engine
    x = tg.tensor(A)
    expected = A[index]
    got = x[index]
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.detach().numpy(), expected)


def test_getitem_with_tensor_index(engine):
    tg = engine
    x = tg.tensor(A)
    np.testing.assert_array_equal(x[tg.tensor([1, 0])].detach().numpy(), A[[1, 0]])
    np.testing.assert_array_equal(x[:, tg.tensor([0, 0])].detach().numpy(), A[:, [0, 0]])
    np.testing.assert_array_equal(x[x > 5].detach().numpy(), A[A > 5])
    np.testing.assert_array_equal(x[tg.tensor(1)].detach().numpy(), A[1])


def test_getitem_errors(engine):
    tg = engine
    x = tg.tensor(A)
    with pytest.raises(IndexError, match="out of bounds for dimension 0 with size 2"):
        x[2]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 3"):
        x[0, 0, 0, 0]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., 0, ...]


def test_getitem_gradients(engine):
    tg = engine
    x = tg.tensor(A, requires_grad=True)
    (x[0, 1:, ::2].sum() + x[:, [2, 2]].sum() * 10 + x[x > 20].sum() * 100).backward()
    expected = np.zeros_like(A)
    expected[0, 1:, ::2] += 1
    np.add.at(expected, (slice(None), [2, 2]), 10)
    expected[A > 20] += 100
    np.testing.assert_array_equal(x.grad.detach().numpy(), expected)


def test_getitem_results_are_views(engine):
    tg = engine
    x = tg.tensor(A)
    v = x[1, :, 1:3]
    assert np.shares_memory(v.detach().numpy(), x.detach().numpy())
    assert v._version == x._version


def _torch_rule(a, index):
    """``a[index]`` as torch reads it: an int is a select applied first, so it never moves an
    array index's dims to the front (numpy would when a slice separates them)."""
    wide = [slice(i, i + 1 or None) if isinstance(i, int) else i for i in index]
    ints = tuple(k for k, i in enumerate(index) if isinstance(i, int))
    return a[tuple(wide)].squeeze(axis=ints)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_random_basic_indexing_matches_numpy(data):
    import transgrad.reference as tg

    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4), label="shape")
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    index = []
    for size in shape[:data.draw(st.integers(0, len(shape)), label="n")]:
        kind = data.draw(st.sampled_from(["int", "slice", "none", "array"]))
        if kind == "int":
            index.append(data.draw(st.integers(-size, size - 1)))
        elif kind == "slice":
            start = data.draw(st.one_of(st.none(), st.integers(-size - 1, size + 1)))
            stop = data.draw(st.one_of(st.none(), st.integers(-size - 1, size + 1)))
            index.append(slice(start, stop, data.draw(st.integers(1, 3))))
        elif kind == "none":
            index.append(None)
            index.append(slice(None))
        elif not any(isinstance(i, list) for i in index):
            index.append(data.draw(st.lists(st.integers(-size, size - 1), min_size=1,
                                            max_size=3)))
        else:  # one array index per expression
            index.append(slice(None))
    index = tuple(index)
    x = tg.tensor(a, requires_grad=True)
    got = x[index]
    np.testing.assert_array_equal(got.detach().numpy(), _torch_rule(a, index))
    got.sum().backward()
    expected = np.zeros_like(a)
    np.add.at(expected, index, 1.0) if got.numel() else None
    np.testing.assert_array_equal(x.grad.detach().numpy(), expected)


def test_setitem_matches_numpy(engine):
    tg = engine
    for index, value in [((0, 1), 7.0), ((slice(None), 0), [1.0, 2.0, 3.0]), (A[0] > 5, -1.0),
                         ((1, [0, 2]), 3.0), (Ellipsis, 0.5)]:
        a = A[0].copy()
        x = tg.tensor(a)
        x[index] = tg.tensor(np.asarray(value)) if isinstance(value, list) else value
        a[index] = value
        np.testing.assert_array_equal(x.detach().numpy(), a)
