"""Datasets and random_split (both engines; torch where it is installed)."""

import numpy as np
import pytest
from transgrad.reference import Generator


def test_tensor_dataset_indexes_every_tensor(tg, data):
    x = tg.tensor(np.arange(12.0).reshape(6, 2))
    y = tg.arange(6)
    ds = data.TensorDataset(x, y)
    assert len(ds) == 6
    xi, yi = ds[4]
    assert np.array_equal(np.asarray(xi), [8.0, 9.0]) and yi.item() == 4
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        data.TensorDataset(x, tg.arange(5))


def test_concat_and_add(data):
    class Range(data.Dataset):
        def __init__(self, a, b):
            self.items = list(range(a, b))

        def __getitem__(self, i):
            return self.items[i]

        def __len__(self):
            return len(self.items)

    cat = Range(0, 3) + Range(10, 12)
    assert isinstance(cat, data.ConcatDataset)
    assert [cat[i] for i in range(len(cat))] == [0, 1, 2, 10, 11]
    assert cat[-1] == 11 and cat[-5] == 0
    assert cat.cumulative_sizes == [3, 5]
    with pytest.raises(ValueError, match="absolute value of index"):
        cat[-6]
    with pytest.raises(AssertionError, match="empty iterable"):
        data.ConcatDataset([])


def test_subset_stack_chain(data):
    sub = data.Subset(list("abcdef"), [5, 0, 2])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == ["f", "a", "c"]
    assert sub.__getitems__([2, 0]) == ["c", "f"]
    st = data.StackDataset([1, 2], ["x", "y"])
    assert st[1] == (2, "y") and len(st) == 2
    assert data.StackDataset(a=[1, 2], b=[3, 4])[0] == {"a": 1, "b": 3}
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        data.StackDataset([1], [1, 2])

    class Stream(data.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n

    chain = Stream(2) + Stream(3)
    assert list(chain) == [0, 1, 0, 1, 2] and len(chain) == 5


def test_random_split_lengths_and_fractions(data):
    parts = data.random_split(range(10), [3, 7], generator=Generator().manual_seed(0))
    assert [len(p) for p in parts] == [3, 7]
    seen = sorted(i for p in parts for i in p.indices)
    assert seen == list(range(10))
    # fractions: floors, then the remainder round-robin from the first split (torch's rule)
    assert [len(p) for p in data.random_split(range(10), [0.33, 0.33, 0.34])] == [4, 3, 3]
    assert [len(p) for p in data.random_split(range(30), [0.3, 0.3, 0.4])] == [9, 9, 12]
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        data.random_split(range(10), [3, 3])
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        data.random_split(range(10), [1.5, -0.5])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        data.random_split(range(3), [0.9, 0.1])


def test_random_split_is_reproducible_with_a_seeded_generator(data):
    a = data.random_split(range(20), [10, 10], generator=Generator().manual_seed(42))
    b = data.random_split(range(20), [10, 10], generator=Generator().manual_seed(42))
    c = data.random_split(range(20), [10, 10], generator=Generator().manual_seed(43))
    assert a[0].indices == b[0].indices
    assert a[0].indices != c[0].indices
    g = Generator().manual_seed(42)
    first = data.random_split(range(20), [10, 10], generator=g)[0].indices
    second = data.random_split(range(20), [10, 10], generator=g)[0].indices
    assert first != second  # the generator advances, as torch's does
    assert first == a[0].indices


def test_random_split_is_torchs(data):
    torch = pytest.importorskip("torch")
    from torch.utils.data import random_split

    mine = data.random_split(range(20), [0.5, 0.3, 0.2], generator=Generator().manual_seed(9))
    theirs = random_split(range(20), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(9))
    assert [p.indices for p in mine] == [p.indices for p in theirs]


def test_random_split_follows_manual_seed(data):
    """Without a generator, the permutation comes from the default engine's global RNG (as
    torch's from torch's): manual_seed makes it reproducible."""
    import importlib
    import importlib.util

    default = importlib.import_module(
        "transgrad" if importlib.util.find_spec("transgrad._C") else "transgrad.reference")
    default.manual_seed(3)
    a = data.random_split(range(50), [25, 25])[0].indices
    default.manual_seed(3)
    b = data.random_split(range(50), [25, 25])[0].indices
    c = data.random_split(range(50), [25, 25])[0].indices
    assert a == b and a != c


def test_bad_generator_is_a_clear_error(data):
    with pytest.raises(TypeError, match="generator must be a transgrad.Generator"):
        data.random_split(range(4), [2, 2], generator=object())


def test_random_split_matches_torch_lengths(data):
    torch = pytest.importorskip("torch")
    for n, lengths in [(10, [0.3, 0.7]), (7, [0.5, 0.5]), (11, [0.2, 0.2, 0.6]), (5, [2, 3])]:
        ours = [len(s) for s in data.random_split(range(n), lengths)]
        theirs = [len(s) for s in torch.utils.data.random_split(range(n), lengths)]
        assert ours == theirs
