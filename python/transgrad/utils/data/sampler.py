"""Samplers, as ``torch.utils.data.sampler``: iterables of dataset keys (or lists of keys,
``BatchSampler``) that decide the order in which a DataLoader reads a map-style dataset.

Input: a dataset's length, indices or weights, a ``generator``. Output: Python ints (lists of
ints from ``BatchSampler``); no tensors, so engine-neutral. Every random draw goes through
``transgrad.utils.data._random`` as torch's do (Note [One source of randomness]).
"""

from __future__ import annotations

from typing import Any, Generic, Iterable, Iterator, List, Optional, Sequence, Sized, TypeVar

import numpy as np

from transgrad.utils.data import _random

T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Base class: subclasses define ``__iter__`` (and ``__len__`` when they know it)."""

    def __init__(self, data_source: Optional[Sized] = None) -> None:
        pass  # torch accepts (and ignores) a data_source here

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """``0, 1, ..., len(data_source) - 1``."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A random permutation of the keys (repeated until ``num_samples``), or ``num_samples``
    keys drawn uniformly with replacement."""

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: Optional[int] = None, generator: Any = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        # The dataset may grow or shrink between epochs.
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        g = _random.epoch_generator(self.generator)  # Note [One source of randomness]
        if self.replacement:  # torch draws in blocks of 32
            for _ in range(self.num_samples // 32):
                yield from g.integers(32, 0, n).tolist()
            yield from g.integers(self.num_samples % 32, 0, n).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from g.permutation(n).tolist()
        yield from g.permutation(n).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given ``indices`` in a random order (without replacement)."""

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in _random.permutation(len(self.indices), self.generator):
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` keys from ``[0, len(weights))`` with probability proportional to
    ``weights`` (as ``torch.multinomial``: without replacement, a key is drawn at most once)."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Any = None) -> None:
        if (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                or num_samples <= 0):
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        w = np.array(weights, dtype=np.float64)
        if w.ndim != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(w.shape)}")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        w = self.weights
        # torch.multinomial's checks and words
        if not np.all(np.isfinite(w)):
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry = infinity or NaN)")
        if np.any(w < 0):
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry < 0)")
        if w.sum() <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not self.replacement and self.num_samples > w.shape[0]:
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                               "replacement")
        rng = _random.epoch_generator(self.generator).numpy()
        p = w / w.sum()
        if self.replacement:
            keys = rng.choice(w.shape[0], size=self.num_samples, replace=True, p=p)
        else:
            # Weighted sampling without replacement by exponential keys: the num_samples
            # largest of u ** (1 / w); keys with zero weight come last, as torch's.
            with np.errstate(divide="ignore"):
                score = np.log(rng.random(w.shape[0])) / w
            keys = np.argsort(-score, kind="stable")[: self.num_samples]
        yield from keys.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[List[int]]):
    """Lists of ``batch_size`` keys from ``sampler``; the last, shorter one is dropped when
    ``drop_last``."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                or batch_size <= 0):
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[List[int]]:
        batch: List[int] = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        if self.drop_last:
            return n // self.batch_size
        return (n + self.batch_size - 1) // self.batch_size
