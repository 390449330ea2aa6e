"""DataLoader: batches, samplers, collate, argument errors (torch's), worker processes."""

import os
import signal
import time
import warnings

import numpy as np
import pytest
from transgrad.reference import Generator
from transgrad.utils import data as tdata


def _np(t):
    return np.asarray(t)


def _xy(tg, n=10):
    x = tg.tensor(np.arange(2.0 * n).reshape(n, 2))
    return tdata.TensorDataset(x, tg.arange(n))


def test_sequential_batches_and_len(tg, data):
    loader = data.DataLoader(_xy(tg), batch_size=4)
    batches = list(loader)
    assert len(loader) == 3 == len(batches)
    assert [_np(y).tolist() for _, y in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert all(type(x) is tg.Tensor for x, _ in batches)
    assert batches[2][0].shape == (2, 2)
    dropped = data.DataLoader(_xy(tg), batch_size=4, drop_last=True)
    assert len(dropped) == 2 and [_np(y).tolist() for _, y in dropped][-1] == [4, 5, 6, 7]


def test_shuffle_with_a_generator(tg, data):
    def epoch(loader):
        return [i for _, y in loader for i in _np(y).tolist()]

    a = epoch(data.DataLoader(_xy(tg), batch_size=3, shuffle=True,
                              generator=tg.Generator().manual_seed(5)))
    b = epoch(data.DataLoader(_xy(tg), batch_size=3, shuffle=True,
                              generator=tg.Generator().manual_seed(5)))
    assert a == b and sorted(a) == list(range(10)) and a != list(range(10))
    loader = data.DataLoader(_xy(tg), batch_size=3, shuffle=True)
    assert epoch(loader) != epoch(loader)  # a new permutation every epoch


def test_sampler_batch_sampler_collate_fn_and_no_batching(tg, data):
    ds = _xy(tg)
    loader = data.DataLoader(ds, batch_size=2, sampler=[9, 8, 7])
    assert [_np(y).tolist() for _, y in loader] == [[9, 8], [7]]
    loader = data.DataLoader(ds, batch_sampler=[[1, 2, 3], [0]])
    assert [_np(y).tolist() for _, y in loader] == [[1, 2, 3], [0]] and len(loader) == 2
    loader = data.DataLoader(ds, batch_size=5, collate_fn=lambda b: len(b))
    assert list(loader) == [5, 5]
    loader = data.DataLoader([np.ones(2), np.zeros(2)], batch_size=None)
    items = list(loader)
    assert len(items) == 2 and type(items[0]) is tg.Tensor and items[0].shape == (2,)


class _Stream(tdata.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = tdata.get_worker_info()
        lo, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(lo, self.n, step))

    def __len__(self):
        return self.n


def test_iterable_dataset(tg, data):
    loader = data.DataLoader(_Stream(7), batch_size=3)
    assert [_np(b).tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]] and len(loader) == 3
    loader = data.DataLoader(_Stream(7), batch_size=3, drop_last=True)
    assert [_np(b).tolist() for b in loader] == [[0, 1, 2], [3, 4, 5]] and len(loader) == 2


_ERROR_CASES = [
    ("num_workers", lambda D, ds: D(ds, num_workers=-1)),
    ("timeout", lambda D, ds: D(ds, timeout=-1)),
    ("prefetch", lambda D, ds: D(ds, prefetch_factor=2)),
    ("persistent", lambda D, ds: D(ds, persistent_workers=True)),
    ("sampler+shuffle", lambda D, ds: D(ds, sampler=[0], shuffle=True)),
    ("batch_sampler+batch_size", lambda D, ds: D(ds, batch_sampler=[[0]], batch_size=2)),
    ("batch_sampler+drop_last", lambda D, ds: D(ds, batch_sampler=[[0]], drop_last=True)),
    ("batch_size None+drop_last", lambda D, ds: D(ds, batch_size=None, drop_last=True)),
    ("context without workers", lambda D, ds: D(ds, multiprocessing_context="fork")),
    ("bad context", lambda D, ds: D(ds, num_workers=1, multiprocessing_context="nope")),
]


@pytest.mark.parametrize("name", [c[0] for c in _ERROR_CASES])
def test_argument_errors_match_torch(data, name):
    torch = pytest.importorskip("torch")
    make = dict(_ERROR_CASES)[name]
    with pytest.raises(Exception) as theirs:
        make(torch.utils.data.DataLoader, list(range(4)))
    with pytest.raises(type(theirs.value)) as ours:
        make(data.DataLoader, list(range(4)))
    assert str(ours.value) == str(theirs.value)


def test_iterable_dataset_errors_and_frozen_attributes(data):
    for kw in ({"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}):
        with pytest.raises(ValueError, match="DataLoader with IterableDataset: expected "
                                             "unspecified"):
            data.DataLoader(_Stream(3), **kw)
    loader = data.DataLoader([1, 2])
    with pytest.raises(ValueError, match="batch_size attribute should not be set after "
                                         "DataLoader is initialized"):
        loader.batch_size = 3
    loader.num_workers = 0  # not frozen in torch either


def test_pin_memory_is_accepted_with_torchs_warning(tg, data):
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no "
                                         "accelerator is found"):
        batches = list(data.DataLoader(_xy(tg), batch_size=5, pin_memory=True))
    assert len(batches) == 2


def test_batches_equal_torchs(tg, data):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).standard_normal((11, 3)).astype(np.float32)
    y = np.arange(11)
    ours = data.DataLoader(data.TensorDataset(tg.tensor(x), tg.tensor(y)), batch_size=4)
    theirs = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.from_numpy(x), torch.from_numpy(y)), batch_size=4)
    assert len(ours) == len(theirs)
    for (xo, yo), (xt, yt) in zip(ours, theirs):
        np.testing.assert_array_equal(_np(xo), xt.numpy())
        np.testing.assert_array_equal(_np(yo), yt.numpy())
    samples = [{"a": i, "b": [float(i), np.float32(i)], "s": str(i)} for i in range(5)]
    for bo, bt in zip(data.DataLoader(samples, batch_size=2),
                      torch.utils.data.DataLoader(samples, batch_size=2)):
        assert _np(bo["a"]).tolist() == bt["a"].tolist() and bo["s"] == bt["s"]
        assert _np(bo["b"][0]).dtype == np.float64 and _np(bo["b"][1]).dtype == np.float32


# ---- worker processes ----------------------------------------------------------------------

class _Squares(tdata.Dataset):
    def __getitem__(self, i):
        return np.array([i * i], dtype=np.int64), os.getpid()

    def __len__(self):
        return 13


def _flat(loader):
    return [v for b, _ in loader for v in _np(b).ravel().tolist()]


def test_workers_give_the_single_process_batches_in_order(tg, data):
    loader = data.DataLoader(_Squares(), batch_size=3, num_workers=2)
    assert _flat(loader) == [i * i for i in range(13)]
    pids = {p for _, pid in loader for p in _np(pid).tolist()}
    assert os.getpid() not in pids and len(pids) == 2
    assert type(next(iter(loader))[0]) is tg.Tensor
    unordered = data.DataLoader(_Squares(), batch_size=3, num_workers=2, in_order=False)
    assert sorted(_flat(unordered)) == [i * i for i in range(13)]


def test_iterable_dataset_split_by_worker_info(data):
    loader = data.DataLoader(_Stream(10), batch_size=2, num_workers=2)
    out = [v for b in loader for v in _np(b).tolist()]
    assert sorted(out) == list(range(10))


class _Seeds(tdata.Dataset):
    def __getitem__(self, i):
        info = tdata.get_worker_info()
        return info.id, info.seed, info.num_workers, int(np.random.randint(1 << 30))

    def __len__(self):
        return 4


def _init(worker_id):
    info = tdata.get_worker_info()
    assert info is not None and info.id == worker_id
    np.random.seed(1000 + worker_id)  # what worker_init_fn is usually for


def test_worker_info_seeds_and_init_fn(data):
    assert tdata.get_worker_info() is None
    loader = data.DataLoader(_Seeds(), batch_size=1, num_workers=2, worker_init_fn=_init,
                             generator=Generator().manual_seed(0))
    rows = [tuple(_np(v).item() for v in b) for b in loader]
    assert [r[0] for r in rows] == [0, 1, 0, 1]  # round robin
    base = rows[0][1]
    assert rows[1][1] == base + 1 and rows[2][1] == base  # seed = base_seed + worker id
    assert all(r[2] == 2 for r in rows)
    assert rows[0][3] == np.random.RandomState(1000).randint(1 << 30)
    again = [tuple(_np(v).item() for v in b) for b in data.DataLoader(
        _Seeds(), batch_size=1, num_workers=2, generator=Generator().manual_seed(0))]
    assert again[0][1] == base  # the base seed comes from the loader's generator


class _Failing(tdata.Dataset):
    def __getitem__(self, i):
        if i == 3:
            raise KeyError("no sample 3")
        return i

    def __len__(self):
        return 6


def test_worker_exception_is_raised_in_the_main_process(data):
    it = iter(data.DataLoader(_Failing(), batch_size=2, num_workers=2))
    assert _np(next(it)).tolist() == [0, 1]
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process 1") as e:
        next(it)
    assert "no sample 3" in str(e.value) and "Traceback" in str(e.value)
    assert _np(next(it)).tolist() == [4, 5]  # the loader goes on, as torch's


class _Dies(tdata.Dataset):
    def __getitem__(self, i):
        if i == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return i

    def __len__(self):
        return 4


def test_a_dead_worker_is_an_error_not_a_hang(data):
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited "
                                           "unexpectedly"):
        list(data.DataLoader(_Dies(), batch_size=1, num_workers=1))
    assert time.monotonic() - start < 20


class _Slow(tdata.Dataset):
    def __getitem__(self, i):
        time.sleep(30)
        return i

    def __len__(self):
        return 2


def test_timeout(data):
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.5 seconds"):
        next(iter(data.DataLoader(_Slow(), num_workers=1, timeout=0.5)))


class _Unpicklable(tdata.Dataset):
    def __getitem__(self, i):
        return lambda: i

    def __len__(self):
        return 2


def test_a_batch_that_does_not_pickle_is_an_error(data):
    loader = data.DataLoader(_Unpicklable(), batch_size=None, num_workers=1,
                             collate_fn=lambda x: x)
    with pytest.raises(Exception, match="sending its batch to the main process"):
        next(iter(loader))


def test_persistent_workers_across_epochs(data):
    loader = data.DataLoader(_Squares(), batch_size=5, num_workers=2, persistent_workers=True)
    first = [(v, p) for b, pid in loader for v, p in zip(_np(b).ravel(), _np(pid))]
    it = iter(loader)
    next(it)  # abandon an epoch half way: its late batches must not leak into the next
    second = [(v, p) for b, pid in loader for v, p in zip(_np(b).ravel(), _np(pid))]
    assert [v for v, _ in first] == [v for v, _ in second] == [i * i for i in range(13)]
    assert {p for _, p in first} == {p for _, p in second}  # the same processes
    stream = data.DataLoader(_Stream(6), batch_size=2, num_workers=2, persistent_workers=True)
    for _ in range(2):
        assert sorted(v for b in stream for v in _np(b).tolist()) == list(range(6))


def test_workers_stop_with_the_iterator(data):
    it = iter(data.DataLoader(_Squares(), batch_size=2, num_workers=2))
    next(it)
    workers = list(it._workers)
    del it
    deadline = time.monotonic() + 10
    while any(w.is_alive() for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(w.is_alive() for w in workers)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        list(data.DataLoader(_Squares(), batch_size=20, num_workers=1))


def test_too_many_workers_warns_as_torch(data):
    n = (os.cpu_count() or 1) + 3
    with pytest.warns(UserWarning, match=f"This DataLoader will create {n} worker processes"):
        data.DataLoader([1, 2], num_workers=n)


def test_spawned_workers(tg, data):
    """The "spawn" start method pickles the loader's parts (dataset, collate) to the workers."""
    loader = data.DataLoader(_Squares(), batch_size=5, num_workers=1,
                             multiprocessing_context="spawn")
    batches = list(loader)
    assert _flat_pairs(batches) == [i * i for i in range(13)]
    assert type(batches[0][0]) is tg.Tensor


def _flat_pairs(batches):
    return [v for b, _ in batches for v in _np(b).ravel().tolist()]


def test_a_generator_drives_shuffling(data):
    def epoch(g):
        return [v for b in data.DataLoader(list(range(12)), batch_size=5, shuffle=True,
                                           generator=g) for v in _np(b).tolist()]

    a = epoch(Generator().manual_seed(7))
    assert a == epoch(Generator().manual_seed(7)) and sorted(a) == list(range(12))
    g = Generator().manual_seed(7)
    assert epoch(g) == a and epoch(g) != a  # the generator advances between epochs


def test_shuffled_batches_are_torchs_for_the_same_seed(tg, data):
    """Note [One source of randomness]: the same draws in the same order as torch's loader,
    with the global generator and with one of the program's own."""
    torch = pytest.importorskip("torch")
    import torch.utils.data as tdata_torch

    def epochs(lib, mod, generator):
        ds = mod.TensorDataset(lib.arange(23))
        loader = mod.DataLoader(ds, batch_size=4, shuffle=True, generator=generator)
        return [b[0].tolist() for _ in range(3) for b in loader]

    for seed in (0, 5):
        tg.manual_seed(seed)
        torch.manual_seed(seed)
        assert epochs(tg, data, None) == epochs(torch, tdata_torch, None)
        assert epochs(tg, data, tg.Generator().manual_seed(seed + 1)) == epochs(
            torch, tdata_torch, torch.Generator().manual_seed(seed + 1))
        assert tg.rand(3).tolist() == torch.rand(3).tolist()  # the stream is where torch's is


def _failing_init(worker_id):
    raise ValueError(f"cannot open the shard of worker {worker_id}")


def test_worker_init_fn_error_is_raised_in_the_main_process(data):
    it = iter(data.DataLoader(_Squares(), batch_size=4, num_workers=1,
                              worker_init_fn=_failing_init))
    with pytest.raises(ValueError, match="Caught ValueError in DataLoader worker process 0"
                                         "(.|\n)*cannot open the shard of worker 0"):
        next(it)
