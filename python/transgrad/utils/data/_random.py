"""The randomness of data loading: every shuffle, split and worker seed draws through here.

Input: the ``generator=`` argument torch programs pass (``None``, a numpy ``Generator``, or a
torch-style generator object with ``manual_seed``/``initial_seed``). Output: a numpy
``Generator`` for one use (one epoch of a sampler, one split, one loader iteration).

Note [One source of randomness]
torch draws a sampler's permutation from ``generator`` when one is given, else from a fresh
generator seeded from the global RNG (so ``torch.manual_seed`` makes shuffling reproducible).
We do the same with numpy: ``None`` seeds a fresh numpy Generator from the global RNG of the
default engine (``transgrad`` when built, else ``transgrad.reference``), through its
``randint``; a numpy Generator is used as it is (its state advances); a torch-style generator is
read through ``initial_seed()`` and then re-seeded with a seed drawn from that stream, so the
next epoch differs and ``g.manual_seed(0)`` restarts the sequence (its ``initial_seed()``
therefore changes after use, unlike torch's). When transgrad has its own ``Generator``, this
module is the one place to plug it in; the permutations will never equal torch's (another RNG).
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

from transgrad.utils import _engine

_SEED_BOUND = 2**62  # seeds are non-negative int64, as torch's


def _global_seed() -> int:
    """A seed drawn from the default engine's global RNG (``manual_seed`` fixes it)."""
    name = _engine.COMPILED
    if importlib.util.find_spec("transgrad._C") is None:
        name = _engine.REFERENCE
    return int(_engine.engine(name).randint(0, _SEED_BOUND, (1,)).item())


def numpy_rng(generator: Any = None) -> np.random.Generator:
    """A numpy Generator for one use of ``generator`` (Note [One source of randomness])."""
    if generator is None:
        return np.random.default_rng(_global_seed())
    if isinstance(generator, np.random.Generator):
        return generator
    if callable(getattr(generator, "initial_seed", None)) and callable(
            getattr(generator, "manual_seed", None)):
        rng = np.random.default_rng(int(generator.initial_seed()) % 2**64)
        generator.manual_seed(int(rng.integers(_SEED_BOUND)))  # advance: the next use differs
        return rng
    raise TypeError(
        f"generator must be None, a numpy.random.Generator or a Generator with manual_seed() "
        f"and initial_seed(), got {type(generator).__name__}")


def draw_seed(generator: Any = None) -> int:
    """One non-negative int64 seed drawn from ``generator`` (a loader's worker base seed)."""
    return int(numpy_rng(generator).integers(_SEED_BOUND))
