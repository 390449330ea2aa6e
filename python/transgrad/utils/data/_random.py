"""The randomness of data loading: every shuffle, split and worker seed draws through here.

Input: the ``generator=`` argument torch programs pass (``None`` or a ``transgrad.Generator``).
Output: permutations, integers and seeds drawn as torch's samplers draw them.

Note [One source of randomness]
torch's samplers draw from ``generator`` when one is given; otherwise each epoch takes a fresh
generator seeded with one int64 drawn from the global generator (so ``torch.manual_seed`` makes
shuffling reproducible), and every loader iterator draws a base seed for its workers from the
loader's generator, workers or not. We make the same draws in the same order from the same
kind of generator (Note [The same numbers as torch] in transgrad/_random.py), so after one
``manual_seed`` a transgrad program sees torch's batches in torch's order. The global generator
is ``transgrad._random.default_generator``, shared by both engines.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from transgrad._random import Generator, default_generator


def _checked(generator: Any) -> Generator:
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a transgrad.Generator, got "
                        f"{type(generator).__name__}")
    return generator


def draw_seed(generator: Any = None) -> int:
    """One non-negative int64 drawn as torch's ``empty((), dtype=int64).random_(generator=g)``:
    a loader iterator's base seed, a sampler's epoch seed."""
    return int(_checked(generator)._words64(1)[0] % np.uint64(2**63))


def epoch_generator(generator: Any = None) -> Generator:
    """The generator one epoch of a sampler draws from: ``generator`` itself (its state
    advances), or a fresh one seeded from the global generator, as torch's RandomSampler."""
    if generator is not None:
        return _checked(generator)
    return Generator().manual_seed(draw_seed(None))


def permutation(n: int, generator: Any = None) -> list:
    """``torch.randperm(n, generator=generator).tolist()`` (the global generator for None)."""
    return _checked(generator).permutation(n).tolist()
