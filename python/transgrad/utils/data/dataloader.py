"""The DataLoader, as ``torch.utils.data.dataloader``: a dataset + a sampler + a collate
function -> an iterable of batches, read in the main process or in worker processes.

Input: a map-style or iterable dataset and torch's arguments (validated with torch's errors).
Output: batches from ``collate_fn`` (``default_collate``: tensors of the loader's engine,
Note [The engine of a batch] in _collate.py).

Note [Worker processes]
``num_workers > 0`` reads in ``multiprocessing`` processes (started with "fork" where the
platform has it, as torch on Linux, else the platform's default; ``multiprocessing_context``
overrides it). Each worker has its own index queue; results come back on one queue, pickled by
the worker (so an unpicklable batch is an error, not a lost batch) and tagged with the epoch and
the task number: batches are returned in sampler order (``in_order=True``) or as they arrive,
results of an abandoned epoch are dropped. At most ``prefetch_factor * num_workers`` tasks are
out at a time. The main process never waits blindly: it polls, and a dead worker or an expired
``timeout`` raises a RuntimeError; an exception in a worker is raised again in the main
process with the worker's traceback. Workers stop when the iterator is exhausted or collected
(``persistent_workers``: when the loader is), and exit by themselves if the main process dies.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
import pickle
import queue
import time
import warnings
import weakref
from typing import Any, Callable, Dict, List, Optional, Set

from transgrad.utils import _engine
from transgrad.utils.data import _fetch, _random, _worker
from transgrad.utils.data._collate import default_collate, default_convert
from transgrad.utils.data._worker import get_worker_info
from transgrad.utils.data.dataset import Dataset, IterableDataset
from transgrad.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

_POLL_SECONDS = 0.5
_FROZEN_AFTER_INIT = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                      "persistent_workers")


class _InfiniteConstantSampler(Sampler):
    """The sampler of an iterable dataset: its keys are ignored, only their count matters."""

    def __iter__(self) -> Any:
        while True:
            yield None


def _default_context() -> Any:
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


class DataLoader:
    """Batches of a dataset, as ``torch.utils.data.DataLoader`` (same arguments, defaults and
    errors). ``pin_memory`` is accepted and does nothing (transgrad runs on the CPU; torch
    without an accelerator warns the same); ``timeout`` applies to worker processes."""

    # Engine of the tensors made by the default collate (Note [The engine of a batch]).
    _engine_name = _engine.COMPILED
    __initialized = False

    def __init__(self, dataset: Dataset, batch_size: Optional[int] = 1,
                 shuffle: Optional[bool] = None, sampler: Any = None, batch_sampler: Any = None,
                 num_workers: int = 0, collate_fn: Optional[Callable] = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Optional[Callable[[int], None]] = None,
                 multiprocessing_context: Any = None, generator: Any = None, *,
                 prefetch_factor: Optional[int] = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        elif num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")

        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)  # type: ignore[arg-type]
            else:
                sampler = SequentialSampler(dataset)  # type: ignore[arg-type]
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = (self._default_collate if self._auto_collation
                          else self._default_convert)
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._iterator: Optional[_MultiProcessIter] = None
        self.__initialized = True
        self.check_worker_number_rationality()

    def check_worker_number_rationality(self) -> None:
        """Warn, as torch does, when there are more workers than CPUs this process may use."""
        if self.num_workers == 0:
            return
        try:
            cpus = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cpus = os.cpu_count() or 0
        if cpus and self.num_workers > cpus:
            warnings.warn(
                f"This DataLoader will create {self.num_workers} worker processes in total. "
                f"Our suggested max number of worker in current system is {cpus}, which is "
                "smaller than what this DataLoader is going to create. Please be aware that "
                "excessive worker creation might get DataLoader running slow or even freeze, "
                "lower the worker number to avoid potential slowness/freeze if necessary.",
                stacklevel=3)

    # The default collate/convert of this loader's engine (staticmethods, so the reference
    # twin overrides them by name; see transgrad.reference.utils.data).
    _default_collate = staticmethod(default_collate)
    _default_convert = staticmethod(default_convert)

    @property
    def multiprocessing_context(self) -> Any:
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context: Any) -> None:
        if context is not None:
            if self.num_workers == 0:
                raise ValueError("multiprocessing_context can only be used with multi-process "
                                 "loading (num_workers > 0), but got "
                                 f"num_workers={self.num_workers}")
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError("multiprocessing_context option should specify a valid "
                                     f"start method in {methods!r}, but got "
                                     f"multiprocessing_context={context!r}")
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context "
                                "object or a string specifying the start method, but got "
                                f"multiprocessing_context={context}")
        self.__multiprocessing_context = context

    def __setattr__(self, attr: str, val: Any) -> None:
        if self.__initialized and attr in _FROZEN_AFTER_INIT:
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> Any:
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if self.persistent_workers:
            if self._iterator is None or self._iterator._shutdown:  # first, or after an error
                self._iterator = _MultiProcessIter(self)
            else:
                self._iterator._reset(self)
            return self._iterator
        return _MultiProcessIter(self)

    def __len__(self) -> int:
        if self._iterable:
            length = len(self.dataset)  # type: ignore[arg-type]
            if self.batch_size is not None:
                if self.drop_last:
                    return length // self.batch_size
                return math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)


class _BaseIter:
    def __init__(self, loader: DataLoader) -> None:
        self._iterable = loader._iterable
        self._dataset = loader.dataset
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._collate_fn = loader.collate_fn
        if loader.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=3)
        self._sampler_iter = iter(self._index_sampler)
        # drawn by every iterator, workers or not, as torch's (Note [One source of randomness])
        self._base_seed = _random.draw_seed(loader.generator)

    def __iter__(self) -> "_BaseIter":
        return self

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self) -> Any:
        raise NotImplementedError(f"{self.__class__.__name__} cannot be pickled")


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._fetcher = _fetch.make_fetcher(self._iterable, self._dataset,
                                            self._auto_collation, self._collate_fn,
                                            self._drop_last)

    def __next__(self) -> Any:
        index = next(self._sampler_iter)
        return self._fetcher.fetch(index)


def _stop_workers(workers: List[Any], index_queues: List[Any], result_queue: Any) -> None:
    """Tell every worker to stop, wait a little, terminate the ones still busy.

    Note [Stopping workers]
    This runs from a ``weakref.finalize`` of the iterator, never from ``__del__``: an iterator
    caught in a reference cycle (a traceback holds one) is collected with its queues, and the
    collector may close their pipes before ``__del__`` runs, so the stop message would never
    arrive. The finalizer holds the queues and processes itself, so they are intact when it
    runs (at the latest at interpreter exit)."""
    for q in index_queues:
        try:
            q.put(None)
        except (OSError, ValueError):
            pass
    for w in workers:
        w.join(timeout=2.0)
        if w.is_alive():
            w.terminate()
            w.join(timeout=1.0)
    for q in index_queues + [result_queue]:
        q.cancel_join_thread()
        q.close()


class _MultiProcessIter(_BaseIter):
    """Note [Worker processes]."""

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._num_workers = loader.num_workers
        self._prefetch = loader.prefetch_factor * loader.num_workers  # type: ignore[operator]
        self._timeout = loader.timeout
        self._in_order = loader.in_order
        self._persistent = loader.persistent_workers
        context = loader.multiprocessing_context or _default_context()
        self._result_queue = context.Queue()
        self._index_queues: List[Any] = []
        self._workers: List[Any] = []
        base_seed = self._base_seed
        self._shutdown = False
        # Note [Stopping workers]: the finalizer owns the queues and the processes.
        self._stop = weakref.finalize(self, _stop_workers, self._workers, self._index_queues,
                                      self._result_queue)
        try:
            for worker_id in range(self._num_workers):
                index_queue = context.Queue()
                index_queue.cancel_join_thread()
                worker = context.Process(
                    target=_worker.worker_loop,
                    args=(self._iterable, self._dataset, index_queue, self._result_queue,
                          self._auto_collation, self._collate_fn, self._drop_last, base_seed,
                          loader.worker_init_fn, worker_id, self._num_workers,
                          loader._engine_name),
                    daemon=True)
                worker.start()
                self._index_queues.append(index_queue)
                self._workers.append(worker)
        except BaseException:
            self._shutdown_workers()
            raise
        self._epoch = 0
        self._reset(loader, first=True)

    def _reset(self, loader: DataLoader, first: bool = False) -> None:
        if not first:
            self._sampler_iter = iter(self._index_sampler)
        self._epoch += 1
        self._send_idx = 0
        self._rcvd_idx = 0
        self._outstanding = 0
        self._task_worker: Dict[int, int] = {}  # task -> worker, for tasks not yet returned
        self._ready: Dict[int, Any] = {}  # results that arrived ahead of their turn
        self._consumed: Set[int] = set()  # tasks answered out of turn (returned or ended)
        self._active = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        for _ in range(self._prefetch):
            self._put_task()

    def _put_task(self) -> None:
        if self._outstanding >= self._prefetch or not any(self._active):
            return
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        worker_id = next(self._worker_cycle)
        while not self._active[worker_id]:
            worker_id = next(self._worker_cycle)
        self._index_queues[worker_id].put((self._epoch, self._send_idx, index))
        self._task_worker[self._send_idx] = worker_id
        self._send_idx += 1
        self._outstanding += 1

    def _get_result(self) -> Any:
        """The next result of any worker, or an error when a worker died or time ran out."""
        start = time.monotonic()
        while True:
            try:
                return pickle.loads(self._result_queue.get(timeout=_POLL_SECONDS))
            except queue.Empty:
                dead = [w for w in self._workers if not w.is_alive()]
                if dead:
                    pids = ", ".join(str(w.pid) for w in dead)
                    self._shutdown_workers()
                    raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited "
                                       "unexpectedly") from None
                if self._timeout > 0 and time.monotonic() - start > self._timeout:
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} "
                                       "seconds") from None

    def _next_in_order(self) -> Any:
        """The next batch: the oldest task's when ``in_order``, else the first to arrive.
        Tasks that will never yield one (sent to a worker whose iterable is exhausted) are
        skipped."""
        while True:
            while self._rcvd_idx < self._send_idx and self._rcvd_idx not in self._ready and (
                    self._rcvd_idx in self._consumed
                    or not self._active[self._task_worker[self._rcvd_idx]]):
                self._consumed.discard(self._rcvd_idx)
                del self._task_worker[self._rcvd_idx]
                self._rcvd_idx += 1
            if self._rcvd_idx >= self._send_idx:
                raise StopIteration
            if self._rcvd_idx in self._ready:
                del self._task_worker[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._ready.pop(self._rcvd_idx - 1)
            epoch, task_id, data = self._get_result()
            if epoch != self._epoch or task_id < self._rcvd_idx:
                continue  # a batch of an abandoned epoch, or the end of a skipped task
            self._outstanding -= 1
            if isinstance(data, _worker.IterableEnd):
                self._active[data.worker_id] = False
                self._consumed.add(task_id)
                self._put_task()
            elif task_id == self._rcvd_idx:
                del self._task_worker[task_id]
                self._rcvd_idx += 1
                return data
            elif not self._in_order:
                self._consumed.add(task_id)
                return data
            else:
                self._ready[task_id] = data

    def __next__(self) -> Any:
        if self._shutdown:
            raise StopIteration
        try:
            data = self._next_in_order()
        except StopIteration:
            if not self._persistent:
                self._shutdown_workers()
            raise
        self._put_task()
        if isinstance(data, _worker.ExceptionWrapper):
            data.reraise()
        return data

    def _shutdown_workers(self) -> None:
        self._shutdown = True
        self._stop()
