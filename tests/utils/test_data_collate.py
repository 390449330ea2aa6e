"""default_collate / default_convert: structure, dtypes and engine of the batch; torch's."""

import collections

import numpy as np
import pytest

Point = collections.namedtuple("Point", ["x", "y"])


def _np(t):
    return np.asarray(t)


def test_collate_tensors_numbers_strings(tg, data):
    batch = data.default_collate([(tg.ones(2), 1, 0.5, "a"), (tg.zeros(2), 2, 1.5, "b")])
    assert isinstance(batch, list) and len(batch) == 4  # tuples become lists, as torch's
    x, i, f, s = batch
    assert type(x) is tg.Tensor and x.shape == (2, 2)
    assert np.array_equal(_np(x), [[1, 1], [0, 0]])
    assert i.dtype == tg.int64 and _np(i).tolist() == [1, 2]
    assert f.dtype == tg.float64 and _np(f).tolist() == [0.5, 1.5]
    assert s == ("a", "b")


def test_collate_numpy_dicts_namedtuples(tg, data):
    batch = data.default_collate([{"img": np.ones((2, 2), np.float32), "p": Point(1, 2.0)},
                                  {"img": np.zeros((2, 2), np.float32), "p": Point(3, 4.0)}])
    assert set(batch) == {"img", "p"}
    assert type(batch["img"]) is tg.Tensor and batch["img"].shape == (2, 2, 2)
    assert batch["img"].dtype == tg.float32
    assert isinstance(batch["p"], Point) and _np(batch["p"].x).tolist() == [1, 3]
    scalars = data.default_collate([np.float32(1.0), np.float32(2.0)])
    assert scalars.dtype == tg.float32 and _np(scalars).tolist() == [1.0, 2.0]
    assert _np(data.default_collate([True, False])).tolist() == [True, False]
    od = data.default_collate([collections.OrderedDict(a=1), collections.OrderedDict(a=2)])
    assert isinstance(od, collections.OrderedDict)


def test_batch_without_tensors_uses_the_loaders_engine(tg, data):
    assert type(data.default_collate([1, 2])) is tg.Tensor
    assert type(data.default_convert(np.ones(2))) is tg.Tensor


def test_non_tensor_leaves_follow_the_tensors_engine(data):
    import transgrad.reference as ref

    batch = data.default_collate([(ref.ones(2), 1), (ref.ones(2), 2)])
    assert all(type(t) is ref.Tensor for t in batch)


def test_collate_errors(tg, data):
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy "
                                        "arrays, numbers, dicts or lists; found <class 'object'>"):
        data.default_collate([object(), object()])
    with pytest.raises(TypeError, match="found <U1"):
        data.default_collate([np.array(["a"]), np.array(["b"])])
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but "
                                           r"got \[2\] at entry 0 and \[3\] at entry 1"):
        data.default_collate([tg.ones(2), tg.ones(3)])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal"):
        data.default_collate([[1, 2], [3]])


def test_default_convert(tg, data):
    out = data.default_convert((np.ones(2), 1, "s", {"a": np.float64(3.0)}))
    assert isinstance(out, list) and type(out[0]) is tg.Tensor and out[1] == 1 and out[2] == "s"
    assert type(out[3]["a"]) is tg.Tensor and out[3]["a"].dtype == tg.float64


def _same(ours, theirs):
    """Same structure, types of containers, values and dtypes (torch vs transgrad)."""
    import torch

    if isinstance(theirs, torch.Tensor):
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert np.dtype(ours.dtype).name == str(theirs.dtype).replace("torch.", "")
        np.testing.assert_array_equal(_np(ours), theirs.numpy())
    elif isinstance(theirs, dict):
        assert type(ours) is type(theirs) and list(ours) == list(theirs)
        for k in theirs:
            _same(ours[k], theirs[k])
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
    else:
        assert ours == theirs


def test_collate_matches_torch(tg, data):
    torch = pytest.importorskip("torch")
    from torch.utils.data import default_collate, default_convert

    def to_torch(x):
        if isinstance(x, tg.Tensor):
            return torch.from_numpy(np.array(_np(x)))
        if isinstance(x, dict):
            return {k: to_torch(v) for k, v in x.items()}
        if isinstance(x, Point):
            return Point(*map(to_torch, x))
        if isinstance(x, (list, tuple)):
            return type(x)(map(to_torch, x))
        return x

    samples = [
        [(tg.ones(2), 1), (tg.zeros(2), 2)],
        [{"a": 1.5, "b": [1, 2], "c": "x"}, {"a": 2.5, "b": [3, 4], "c": "y"}],
        [Point(np.arange(3), 1.0), Point(np.arange(3) * 2, 2.0)],
        [np.float64(1.0), np.float64(2.0)],
        [[np.ones((2, 3), np.float32), True], [np.zeros((2, 3), np.float32), False]],
        [3, 4, 5],
        ["a", "b"],
    ]
    for batch in samples:
        _same(data.default_collate(batch), default_collate([to_torch(s) for s in batch]))
    for item in [(np.ones(2), 1, "s"), {"a": np.arange(3)}, [np.float32(2.0)]]:
        _same(data.default_convert(item), default_convert(item))
