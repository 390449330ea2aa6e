"""Samplers: what they yield, their errors (torch's words), their randomness."""

import collections

import pytest
from transgrad.reference import Generator
from transgrad.utils import data


def test_sequential_and_batch_sampler():
    assert list(data.SequentialSampler(range(4))) == [0, 1, 2, 3]
    bs = data.BatchSampler(data.SequentialSampler(range(10)), batch_size=3, drop_last=False)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]] and len(bs) == 4
    bs = data.BatchSampler(range(10), batch_size=3, drop_last=True)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]] and len(bs) == 3
    for bad in (0, -1, True, 2.0):
        with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
            data.BatchSampler(range(3), bad, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value"):
        data.BatchSampler(range(3), 2, 1)


def test_random_sampler_is_a_permutation_each_epoch():
    s = data.RandomSampler(range(20), generator=Generator().manual_seed(0))
    a, b = list(s), list(s)
    assert sorted(a) == list(range(20)) and sorted(b) == list(range(20))
    assert a != b and len(s) == 20


def test_random_sampler_num_samples_and_replacement():
    s = data.RandomSampler(range(5), num_samples=12, generator=Generator().manual_seed(1))
    out = list(s)
    assert len(out) == 12 == len(s)
    assert sorted(out[:5]) == list(range(5)) and sorted(out[5:10]) == list(range(5))
    s = data.RandomSampler(range(3), replacement=True, num_samples=3000,
                           generator=Generator().manual_seed(2))
    counts = collections.Counter(s)
    assert set(counts) == {0, 1, 2} and all(900 < c < 1100 for c in counts.values())


def test_random_sampler_errors():
    with pytest.raises(TypeError, match="replacement should be a boolean value, but got "
                                        "replacement=1"):
        data.RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but "
                                         "got num_samples=0"):
        data.RandomSampler(range(3), num_samples=0)
    with pytest.raises(ValueError, match="num_samples=0"):
        data.RandomSampler([])


def test_subset_random_sampler():
    s = data.SubsetRandomSampler([10, 20, 30, 40], generator=Generator().manual_seed(0))
    assert sorted(s) == [10, 20, 30, 40] and len(s) == 4


def test_weighted_random_sampler():
    rng = Generator().manual_seed(0)
    s = data.WeightedRandomSampler([0.0, 1.0, 3.0], 4000, generator=rng)
    counts = collections.Counter(s)
    assert counts[0] == 0 and 0.2 < counts[1] / 4000 < 0.3
    s = data.WeightedRandomSampler([1.0, 5.0, 0.0, 2.0], 3, replacement=False, generator=rng)
    out = list(s)
    assert len(set(out)) == 3 and 2 not in out
    # without replacement, heavy keys come first more often
    firsts = collections.Counter(
        list(data.WeightedRandomSampler([1.0, 9.0], 2, replacement=False, generator=rng))[0]
        for _ in range(500))
    assert firsts[1] > 400


def test_weighted_random_sampler_errors():
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        data.WeightedRandomSampler([1.0], 0)
    with pytest.raises(ValueError, match="replacement should be a boolean value"):
        data.WeightedRandomSampler([1.0], 1, replacement=None)
    with pytest.raises(ValueError, match=r"weights should be a 1d sequence but given weights "
                                         r"have shape \(1, 2\)"):
        data.WeightedRandomSampler([[1.0, 2.0]], 1)
    with pytest.raises(RuntimeError, match="probability entry < 0"):
        list(data.WeightedRandomSampler([1.0, -1.0], 1))
    with pytest.raises(RuntimeError, match="sum of probabilities <= 0"):
        list(data.WeightedRandomSampler([0.0, 0.0], 1))
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        list(data.WeightedRandomSampler([1.0, 1.0], 3, replacement=False))


def test_sampler_errors_match_torch():
    torch = pytest.importorskip("torch")
    tdata = torch.utils.data
    cases = [
        lambda d: d.RandomSampler(range(3), replacement="yes"),
        lambda d: d.RandomSampler(range(3), num_samples=-2),
        lambda d: d.BatchSampler(range(3), 0, False),
        lambda d: d.BatchSampler(range(3), 2, None),
        lambda d: d.WeightedRandomSampler([1.0], 1.5),
        lambda d: d.WeightedRandomSampler([[1.0]], 1),
    ]
    for case in cases:
        with pytest.raises(Exception) as theirs:
            case(tdata)
        with pytest.raises(type(theirs.value)) as ours:
            case(data)
        assert str(ours.value) == str(theirs.value)
