"""The DataLoader's worker processes: what runs inside one, and what it tells the main process.

Input (on the worker's index queue): ``(epoch, task, index)`` tasks, ``None`` to stop. Output
(on the shared result queue): ``(epoch, task, data)``, pickled, where data is the collated batch, an
``ExceptionWrapper`` (re-raised in the main process with the worker's traceback), or
``IterableEnd`` (the worker's copy of an iterable dataset is exhausted).

Invariants: each worker seeds Python's ``random``, numpy's global RNG and the engines' global
RNGs from ``base_seed + worker_id`` before ``worker_init_fn`` runs (``get_worker_info().seed``);
a new epoch number (persistent workers) restarts the worker's fetcher, so an iterable dataset
is iterated afresh each epoch; a worker whose parent died exits instead of waiting forever.
"""

from __future__ import annotations

import importlib
import os
import pickle
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from transgrad.utils.data import _fetch

_POLL_SECONDS = 1.0


@dataclass(frozen=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker process."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: Optional[WorkerInfo] = None


def get_worker_info() -> Optional[WorkerInfo]:
    """This worker's id, the number of workers, its seed and its copy of the dataset; None in
    the main process."""
    return _worker_info


@dataclass(frozen=True)
class IterableEnd:
    """A worker's copy of an iterable dataset is exhausted."""

    worker_id: int


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process and raised again there
    with the worker's traceback in its message (the exception's type is kept when it can be
    built from one string)."""

    def __init__(self, where: str) -> None:
        exc_type, exc, _ = sys.exc_info()
        assert exc_type is not None, "ExceptionWrapper is built inside an except block"
        self.exc_type: type[BaseException] = exc_type
        self.msg = "".join(traceback.format_exception(exc_type, exc, exc.__traceback__)
                           if exc is not None else [])
        self.where = where

    def reraise(self) -> None:
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.msg}"
        if self.exc_type is KeyError:  # KeyError repr()s its message: keep it readable
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    def __repr__(self) -> str:
        return str(self)


def _seed_everything(seed: int, worker_id: int, base_seed: int) -> None:
    random.seed(seed)
    np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))
    for name in ("transgrad.reference", "transgrad"):
        mod = sys.modules.get(name)
        seed_fn = getattr(mod, "manual_seed", None) if mod is not None else None
        if seed_fn is not None:
            try:
                seed_fn(seed)
            except AttributeError:  # transgrad without its compiled engine
                pass


def worker_loop(iterable: bool, dataset: Any, index_queue: Any, result_queue: Any,
                auto_collation: bool, collate_fn: Callable, drop_last: bool, base_seed: int,
                init_fn: Optional[Callable[[int], None]], worker_id: int, num_workers: int,
                engine_name: str) -> None:
    """The body of one worker process (the target of ``multiprocessing.Process``)."""
    global _worker_info
    importlib.import_module(engine_name)
    seed = base_seed + worker_id
    _seed_everything(seed, worker_id, base_seed)
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
    where = f"in DataLoader worker process {worker_id}"
    init_error: Optional[ExceptionWrapper] = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
    except Exception:
        init_error = ExceptionWrapper(where)
    parent = os.getppid()
    epoch, fetcher = None, None
    while True:
        try:
            task = index_queue.get(timeout=_POLL_SECONDS)
        except queue.Empty:
            if os.getppid() != parent:  # the main process is gone: nobody will read results
                return
            continue
        if task is None:
            return
        task_epoch, task_id, index = task
        data: Any
        if init_error is not None:  # reported once, with the first task (as torch)
            data, init_error = init_error, None
        else:
            try:
                if task_epoch != epoch or fetcher is None:
                    epoch, fetcher = task_epoch, None
                    fetcher = _fetch.make_fetcher(iterable, dataset, auto_collation,
                                                  collate_fn, drop_last)
                data = fetcher.fetch(index)
            except StopIteration:
                data = IterableEnd(worker_id)
            except Exception:
                data = ExceptionWrapper(where)
        result_queue.put(_pickled(task_epoch, task_id, data, where))


def _pickled(epoch: Any, task_id: int, data: Any, where: str) -> bytes:
    """The result, pickled here rather than in the queue's feeder thread, where a batch that
    does not pickle would be dropped with a printed error and the main process would wait for
    it forever."""
    try:
        return pickle.dumps((epoch, task_id, data), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return pickle.dumps((epoch, task_id, ExceptionWrapper(where + " (sending its batch "
                                                                      "to the main process)")))
