"""unique, unique_consecutive, histc (_api/counting.py) on both engines: values, inverse and
counts by hand, no gradient, errors."""

import numpy as np
import pytest


def test_unique_by_hand(engine):
    tg = engine
    x = tg.tensor([[3.0, 1.0], [3.0, 2.0]], requires_grad=True)
    values, inverse, counts = tg.unique(x, return_inverse=True, return_counts=True)
    assert not values.requires_grad
    np.testing.assert_array_equal(values.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(inverse.numpy(), [[2, 0], [2, 1]])
    np.testing.assert_array_equal(counts.numpy(), [1, 1, 2])
    rows = tg.unique(tg.tensor([[1, 2], [0, 5], [1, 2]]), dim=0)
    np.testing.assert_array_equal(rows.numpy(), [[0, 5], [1, 2]])


def test_unique_consecutive_by_hand(engine):
    tg = engine
    x = tg.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    values, inverse, counts = tg.unique_consecutive(x, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(values.numpy(), [1, 2, 3, 1, 2])
    np.testing.assert_array_equal(inverse.numpy(), [0, 0, 1, 1, 2, 3, 3, 4])
    np.testing.assert_array_equal(counts.numpy(), [2, 2, 1, 2, 1])
    cols = tg.unique_consecutive(tg.tensor([[1, 1, 2], [0, 0, 0]]), dim=1)
    np.testing.assert_array_equal(cols.numpy(), [[1, 2], [0, 0]])


def test_histc_by_hand(engine):
    tg = engine
    x = tg.tensor([0.0, 0.5, 1.0, 2.0, -3.0, 0.25], dtype=tg.float64)
    np.testing.assert_array_equal(tg.histc(x, 2, 0.0, 1.0).numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(x.histc(bins=5).numpy(), [1.0, 0.0, 0.0, 3.0, 2.0])
    with pytest.raises(RuntimeError, match="bins must be > 0"):
        tg.histc(x, 0)


def test_nonzero_by_hand(engine):
    tg = engine
    x = tg.tensor([[0.0, 2.0], [3.0, 0.0]])
    np.testing.assert_array_equal(tg.nonzero(x).numpy(), [[0, 1], [1, 0]])
    rows, cols = x.nonzero(as_tuple=True)
    np.testing.assert_array_equal(rows.numpy(), [0, 1])
    np.testing.assert_array_equal(cols.numpy(), [1, 0])
    assert tuple(tg.nonzero(tg.tensor(5.0)).shape) == (1, 0)
