"""``Generator``: the random number generator of both engines, drawing the numbers torch draws.

Input: a seed (``manual_seed``) or a saved state. Output: numpy arrays of draws (uniform,
normal, integers, permutations, Bernoulli, exponential, ...) that the factories and in-place
samplers of either engine wrap as tensors. Engine-free: a ``Generator`` is plain state, so one
object serves ``transgrad`` and ``transgrad.reference`` alike (as ``torch.Generator`` serves every
CPU tensor).

Note [The same numbers as torch]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A program ported from PyTorch seeds once and then initialises a model, shuffles its data and
draws noise. If our draws follow torch's, that program starts from the same weights and sees
the same batches, so its loss curve can be compared with torch's number for number. torch's
CPU generator is a Mersenne Twister (mt19937) seeded with the low 32 bits of the seed, and each
distribution is a fixed transformation of its 32- or 64-bit outputs. numpy ships the same twister
(``MT19937`` with the reference seeding), so we take the raw words from numpy (vectorised) and
apply torch's transformations:

* uniform float32: ``(w & (2**24 - 1)) * 2**-24``; float64: 53 bits of a 64-bit word made of two
  32-bit words (first one high); ``uniform_(a, b)`` computes ``u * (b - a) + a`` in the dtype;
* normal, 16 or more elements: uniforms in place, then Box-Muller on blocks of 16 (8 cosines, 8
  sines; a ragged tail redraws its last 16 uniforms); fewer than 16: one double Box-Muller pair
  per two elements, the sine half cached in the generator for the next draw;
* integers in ``[low, high)``: ``w % (high - low) + low`` (64-bit words when the range needs them);
  ``randperm``: a forward Fisher-Yates swap with ``w % (n - i)``;
* Bernoulli(p) and exponential: a 64-bit uniform ``u``; ``u < p`` and ``-log1p(-u) / rate``.

Float64 draws equal torch's exactly; float32 normals within a few ulp (torch computes them with
vector math functions). What torch draws through other algorithms (multinomial, Poisson, gamma)
follows the same distribution from this generator, not torch's exact stream: the docs say so.
"""

from __future__ import annotations

import math
import os
import struct
from typing import Any, Optional

import numpy as np

__all__ = ["Generator", "DEFAULT_SEED", "default_generator"]

# torch's constant for a generator made without a seed (``torch.Generator().initial_seed()``).
DEFAULT_SEED = 67280421310721
_U64 = np.uint64
_MASK24 = _U64((1 << 24) - 1)
_MASK53 = _U64((1 << 53) - 1)
_STATE_FORMAT = "<624IiQ?d"  # twister key, position, initial seed, cached normal (flag, value)
STATE_SIZE = struct.calcsize(_STATE_FORMAT)


def _seed_value(seed: Any) -> int:
    """torch's rule: any int in [-2**63, 2**64); negatives wrap to the unsigned 64-bit value."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        try:
            seed = int(seed)
        except (TypeError, ValueError):
            raise TypeError(f"manual_seed expected an int, got {type(seed).__name__}") from None
    seed = int(seed)
    if not -(1 << 63) <= seed < (1 << 64):
        raise RuntimeError("Overflow when unpacking long long")
    return seed % (1 << 64)


class Generator:
    """A CPU random number generator, as ``torch.Generator``: ``manual_seed``, ``seed``,
    ``initial_seed``, ``get_state``/``set_state``; the same seed gives the same numbers as
    torch's generator (Note [The same numbers as torch])."""

    def __init__(self, device: Any = "cpu") -> None:
        from transgrad._device import check_device
        from transgrad._device import device as _device

        check_device(device)
        self.device = _device("cpu")
        self._bits = np.random.MT19937()
        self._normal: Optional[float] = None
        self.manual_seed(DEFAULT_SEED)

    def __repr__(self) -> str:
        return f"<transgrad.Generator object at {id(self):#x}>"

    # -- seeding and state ---------------------------------------------------------------

    def manual_seed(self, seed: Any) -> "Generator":
        """Seed the generator; returns it (``g = Generator().manual_seed(0)``)."""
        self._seed = _seed_value(seed)
        self._bits._legacy_seeding(self._seed & 0xFFFFFFFF)
        self._normal = None
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy and return the seed, as torch's."""
        s = int.from_bytes(os.urandom(8), "little") >> 1  # non-negative int64, as torch's
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state_bytes(self) -> bytes:
        st = self._bits.state["state"]
        cached = self._normal is not None
        return struct.pack(_STATE_FORMAT, *(int(k) for k in st["key"]), int(st["pos"]),
                           self._seed, cached, self._normal if cached else 0.0)

    def set_state_bytes(self, data: bytes) -> None:
        if len(data) != STATE_SIZE:
            raise RuntimeError(f"Expected either a ByteTensor of {STATE_SIZE} bytes (a "
                               f"transgrad generator state), got {len(data)} bytes")
        *key, pos, seed, cached, normal = struct.unpack(_STATE_FORMAT, data)
        if not 0 <= pos <= 624:
            raise RuntimeError("Invalid mt19937 state: position out of range")
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": np.array(key, np.uint32), "pos": pos}}
        self._seed = seed
        self._normal = normal if cached else None

    def get_state(self) -> Any:
        """The state as a uint8 tensor (``set_state`` takes it back): of the compiled engine when
        it is loaded, else of the reference engine."""
        from transgrad import _backend

        loaded = sorted(_backend._BY_TENSOR_TYPE.values(), key=lambda b: b.name != "transgrad")
        if not loaded:
            raise RuntimeError("Generator.get_state needs an engine: import transgrad (built) "
                               "or transgrad.reference")
        return loaded[0].from_numpy(np.frombuffer(self.get_state_bytes(), np.uint8).copy())

    def set_state(self, new_state: Any) -> "Generator":
        a = np.asarray(new_state.detach() if hasattr(new_state, "detach") else new_state)
        if a.dtype != np.uint8:
            raise TypeError(f"expected a torch.ByteTensor, but got a tensor of dtype {a.dtype}")
        self.set_state_bytes(a.tobytes())
        return self

    # -- raw words -----------------------------------------------------------------------

    def _words32(self, n: int) -> np.ndarray:
        return self._bits.random_raw(n).astype(_U64) if n else np.zeros(0, _U64)

    def _words64(self, n: int) -> np.ndarray:
        w = self._words32(2 * n)
        return (w[0::2] << _U64(32)) | w[1::2]

    # -- distributions (flat arrays of n draws) ------------------------------------------

    def uniform(self, n: int, dtype: Any, low: float = 0.0, high: float = 1.0) -> np.ndarray:
        dtype = np.dtype(dtype)
        if dtype == np.float64:
            u = self.uniform64(n)
        else:  # float32 and narrower: torch draws 24 bits and computes in float
            u = ((self._words32(n) & _MASK24).astype(np.float64) * 2.0 ** -24).astype(np.float32)
        if low != 0.0 or high != 1.0:
            t = u.dtype.type
            u = fused_multiply_add(u, t(high - low), t(low))
        return u.astype(dtype, copy=False)

    def normal(self, n: int, dtype: Any, mean: float = 0.0, std: float = 1.0) -> np.ndarray:
        dtype = np.dtype(dtype)
        if n >= 16:
            work = np.float64 if dtype == np.float64 else np.float32
            u = self.uniform(n, work)
            head = (n // 16) * 16
            out = np.empty(n, work)
            out[:head] = _box_muller_16(u[:head].reshape(-1, 16)).ravel()
            if n % 16:  # torch redraws the last 16 uniforms and transforms them again
                out[n - 16:] = _box_muller_16(self.uniform(16, work).reshape(1, 16)).ravel()
            t = out.dtype.type
            return fused_multiply_add(out, t(std), t(mean)).astype(dtype, copy=False)
        z = self.normal_serial(n)
        return fused_multiply_add(z, np.float64(std), np.float64(mean)).astype(dtype)

    def normal_serial(self, n: int) -> np.ndarray:
        """``n`` standard normal doubles one at a time (torch's ``normal_distribution<double>``:
        a Box-Muller pair per two draws, the sine half cached for the next draw)."""
        out = np.empty(n, np.float64)
        for i in range(n):
            if self._normal is not None:
                out[i], self._normal = self._normal, None
                continue
            u1, u2 = self.uniform64(2)
            r = math.sqrt(-2.0 * math.log1p(-float(u2)))
            theta = 2.0 * math.pi * float(u1)
            self._normal = r * math.sin(theta)
            out[i] = r * math.cos(theta)
        return out

    def integers(self, n: int, low: int, high: int) -> np.ndarray:
        """``n`` integers in ``[low, high)`` as int64."""
        span = high - low
        if span <= 0:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={low} >= to={high}")
        words = self._words32(n) if span < (1 << 32) else self._words64(n)
        return ((words % _U64(span)).astype(np.int64) + low) if span < (1 << 63) else (
            (words % _U64(span)).astype(object) + low).astype(np.int64)

    def permutation(self, n: int) -> np.ndarray:
        perm = np.arange(n, dtype=np.int64)
        if n < 2:
            return perm
        words = self._words32(n - 1) if n < (1 << 32) else self._words64(n - 1)
        steps = (words % np.arange(n, 1, -1, dtype=_U64)).astype(np.int64)
        p = perm.tolist()
        for i, z in enumerate(steps.tolist()):
            j = i + z
            p[i], p[j] = p[j], p[i]
        return np.array(p, np.int64)

    def uniform64(self, n: int) -> np.ndarray:
        """Doubles in [0, 1) from 64-bit words (torch's Bernoulli and exponential draws)."""
        return (self._words64(n) & _MASK53).astype(np.float64) * 2.0 ** -53

    def numpy(self) -> np.random.Generator:
        """A numpy Generator seeded from this one's stream (for the distributions torch draws
        by other algorithms: multinomial, Poisson, gamma)."""
        return np.random.Generator(np.random.PCG64(self._words64(2).tolist()))


# The process's generator, as torch's one CPU ``default_generator``: both engines draw from it,
# so ``manual_seed`` on either seeds the data loader, the initialisers and every factory. Seeded
# from the OS at import, as torch's, until a program calls ``manual_seed``.
default_generator = Generator()
default_generator.seed()


def fused_multiply_add(a: np.ndarray, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` rounded once, as the fused multiply-add torch's compiled kernels use (its
    samplers' transformations, ``linspace``). float32: the product is exact in float64, so one
    float64 sum rounded to float32. float64: the product's rounding error by Dekker's split and
    the sum's by Knuth's two-sum, added back before the last rounding."""
    if a.dtype != np.float64:
        return (a.astype(np.float64) * np.float64(b) + np.float64(c)).astype(a.dtype)
    b, c = np.float64(b), np.float64(c)
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    v = s - p
    t = (p - (s - v)) + (c - v)
    return s + (t + e)


def _split(x: Any) -> tuple:
    """Veltkamp's split of doubles into 26-bit high and low halves (x == hi + lo exactly)."""
    big = 134217729.0 * x  # 2**27 + 1
    hi = big - (big - x)
    return hi, x - hi


def _box_muller_16(u: np.ndarray) -> np.ndarray:
    """torch's normal fill of blocks of 16 uniforms: the first 8 become ``r cos``, the last 8
    ``r sin``, in the uniforms' own precision."""
    t = u.dtype.type
    r = np.sqrt(t(-2.0) * np.log(t(1.0) - u[:, :8]))
    theta = t(2.0 * math.pi) * u[:, 8:]
    return np.concatenate([r * np.cos(theta), r * np.sin(theta)], axis=1)
