"""Tensor creation: ``tensor``, ``from_numpy``, ``zeros``/``ones``/``full``/``arange``/``randn``...,
the dtype objects, the default dtype and the engine's default random generator
(``transgrad._random.Generator``: the numbers torch draws, Note [The same numbers as torch]).

Dtypes are numpy dtype objects (``float32 == np.float32`` holds, and ``t.dtype`` is one).
Creation follows PyTorch: Python floats give the default dtype (float32), ints int64, bools
bool; numpy arrays keep their dtype (mapped onto the supported ones when copied).
"""

from __future__ import annotations

import builtins
import fractions
import math
from typing import Any, Optional

import numpy as np

from transgrad._api.dlpack import array_from_dlpack
from transgrad._api.inplace import _TORCH_NAMES
from transgrad._api.memory_formats import laid_out, like_order
from transgrad._api.out_args import write_factory_out, write_out
from transgrad._backend import is_tensor
from transgrad._device import check_device
from transgrad._dtypes import (  # noqa: F401  (the dtype objects are exported from here)
    NUMPY_SUPPORTED,
    as_dtype,
    bool_,
    canonical,
    complex128,
    float32,
    float64,
    int64,
    is_floating,
)
from transgrad._errors import ArgumentError
from transgrad._random import Generator, default_generator, fused_multiply_add


def _shape(size: Any) -> tuple:
    """``zeros(2, 3)`` and ``zeros((2, 3))`` alike."""
    if len(size) == 1 and not isinstance(size[0], (int, np.integer)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def _check_arange_length(start: Any, end: Any, step: Any, dtype: Any) -> None:
    """torch's checks of arange's length, counted exactly: numpy's own count overflows int64
    for ``arange(0, 2**63 - 1)`` and gives an empty range, a silent wrong answer."""
    dtype = np.dtype(dtype)
    try:
        bounds = [fractions.Fraction(v.item() if is_tensor(v) else v) for v in (start, end, step)]
    except (TypeError, ValueError, OverflowError):  # NaN or inf
        raise RuntimeError(f"unsupported range: {start} -> {end}") from None
    n = math.ceil((bounds[1] - bounds[0]) / bounds[2])
    if n * dtype.itemsize > 2**63 - 1:
        raise RuntimeError(f"Storage size calculation overflowed with sizes=[{n}]")


class Factories:
    """The creation functions of one engine, with its default dtype; they draw from the
    process's generator (Note [Factories per engine])."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend
        self._default = float32
        backend.default_dtype = float32
        self.default_generator = default_generator  # one per process, both engines

    def get_default_dtype(self) -> Any:
        return self._default

    def set_default_dtype(self, dtype: Any) -> None:
        d = as_dtype(dtype)
        if not is_floating(d):
            raise TypeError("only floating-point types are supported as the default type")
        self._default = d
        self._backend.default_dtype = d  # the engine's wrapped numbers and kernels follow
        self._backend.set_default_dtype(d)

    def manual_seed(self, seed: int) -> Generator:
        """Seed the engine's default generator and return it (as ``torch.manual_seed``): the
        same seed gives torch's numbers (Note [The same numbers as torch] in _random.py)."""
        return self.default_generator.manual_seed(seed)

    def seed(self) -> int:
        """Seed the default generator from the OS's entropy; returns the seed."""
        return self.default_generator.seed()

    def initial_seed(self) -> int:
        """The seed the default generator was last seeded with."""
        return self.default_generator.initial_seed()

    def get_rng_state(self) -> Any:
        """The default generator's state as a uint8 tensor (``set_rng_state`` restores it)."""
        return self._backend.from_numpy(
            np.frombuffer(self.default_generator.get_state_bytes(), np.uint8).copy())

    def set_rng_state(self, new_state: Any) -> None:
        self.default_generator.set_state(new_state)

    def _gen(self, generator: Any) -> Generator:
        if generator is None:
            return self.default_generator
        if not isinstance(generator, Generator):
            raise TypeError(f"generator must be a transgrad.Generator, not "
                            f"{type(generator).__name__}")
        return generator

    def _wrap(self, a: np.ndarray, requires_grad: bool, device: Any = None) -> Any:
        check_device(device)  # the CPU, or a clear error (transgrad/_device.py)
        t = self._backend.from_numpy(a)
        if requires_grad:
            t.requires_grad_(True)
        return t

    def _float(self, dtype: Any) -> Any:
        return self._default if dtype is None else as_dtype(dtype)

    def tensor(self, data: Any, dtype: Any = None, requires_grad: bool = False,
               device: Any = None) -> Any:
        """A new tensor holding a copy of ``data`` (nested lists, numbers, arrays, tensors)."""
        if is_tensor(data):
            a = np.array(data.detach(), copy=True)
        elif isinstance(data, (list, tuple)) and any(is_tensor(v) for v in _flat(data)):
            a = np.array([np.asarray(v.detach()) if is_tensor(v) else v for v in data])
        else:
            a = np.array(data, copy=True)
            from_python = not isinstance(data, (np.ndarray, np.generic))
            if from_python and (a.dtype.kind == "u" or a.dtype == object and any(
                    isinstance(v, int) and not -2**63 <= v < 2**63 for v in _flat(data))):
                # numpy makes 2**63 a uint64 (then wrapped to int64) and 2**70 an object
                raise ValueError("Overflow when unpacking long long")
        if dtype is not None:
            target = as_dtype(dtype)
            if (not isinstance(data, (np.ndarray, np.generic)) and not is_tensor(data)
                    and target.kind in "iu" and a.dtype.kind in "fiu" and a.size):
                # torch checks each Python number against an integer dtype's range (a NaN or an
                # out-of-range value would otherwise wrap silently, as numpy's astype does)
                if not _fits_integer(a, target):
                    raise RuntimeError(f"value cannot be converted to type "
                                       f"{np.dtype(target).name} without overflow")
            a = a.astype(target, copy=False)
        elif (not isinstance(data, (np.ndarray, np.generic)) and not is_tensor(data)
              and a.dtype.kind == "f"):
            a = a.astype(self._default, copy=False)  # Python floats: the default dtype
        else:
            a = canonical(a)
        return self._wrap(np.asarray(a, order="C"), requires_grad, device)

    def as_tensor(self, data: Any, dtype: Any = None, device: Any = None) -> Any:
        if is_tensor(data) and (dtype is None or as_dtype(dtype) == data.dtype):
            check_device(device)
            return data
        if isinstance(data, np.ndarray) and data.dtype in NUMPY_SUPPORTED and (
                dtype is None or as_dtype(dtype) == data.dtype):
            check_device(device)
            return self._backend.from_numpy(data)
        return self.tensor(data, dtype, device=device)

    def asarray(self, obj: Any, *, dtype: Any = None, device: Any = None, copy: Any = None,
                requires_grad: bool = False) -> Any:
        """``obj`` as a tensor: shared memory where a tensor or array already fits (``copy``
        None or False), a copy with ``copy=True``; ``copy=False`` where a copy is needed
        raises, as torch's."""
        if copy:
            t = self.tensor(obj.detach() if is_tensor(obj) else obj, dtype, device=device)
        else:
            t = self.as_tensor(obj, dtype, device)
            shared = t is obj or (isinstance(obj, np.ndarray) and np.shares_memory(
                np.asarray(t), obj))
            if copy is False and not shared and (is_tensor(obj) or isinstance(obj, np.ndarray)):
                src, dst = (_TORCH_NAMES.get(np.dtype(d).name, str(d)) for d in (
                    obj.dtype, t.dtype))
                raise ValueError(f"can't alias tensor with dtype '{src}' into dtype '{dst}'.")
        if requires_grad:
            t = t.detach() if t is obj else t
            t.requires_grad_(True)
        return t

    def from_numpy(self, a: np.ndarray) -> Any:
        """A tensor sharing memory with the numpy array ``a``."""
        if not isinstance(a, np.ndarray):
            raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(a).__name__}")
        if a.dtype not in NUMPY_SUPPORTED:
            raise TypeError(f"can't convert np.ndarray of type {a.dtype}. The only supported "
                            "types are: float64, float32, float16, bfloat16, complex128, int64, "
                            "int32, int16, int8, uint8, and bool.")
        if any(s < 0 for s in a.strides):  # torch's refusal: a copy would not share memory
            raise ValueError("At least one stride in the given numpy array is negative, and "
                             "tensors with negative strides are not currently supported. (You "
                             "can probably work around this by making a copy of your array  "
                             "with array.copy().) ")
        return self._backend.from_numpy(a)

    def from_dlpack(self, ext_tensor: Any) -> Any:
        """A tensor sharing memory with a DLPack producer (Note [DLPack through numpy])."""
        a = array_from_dlpack(ext_tensor)
        if a.dtype not in NUMPY_SUPPORTED:
            raise TypeError(f"from_dlpack: dtype {a.dtype} has no transgrad tensor type")
        return self._backend.from_numpy(a)

    def full(self, size: Any, fill_value: Any, dtype: Any = None,
             requires_grad: bool = False, device: Any = None, *, out: Any = None) -> Any:
        if out is not None:
            return write_factory_out(
                "full",
                lambda d: self.full(size, fill_value, d, device=device),
                out, dtype)
        if dtype is None:
            dtype = (bool_ if isinstance(fill_value, builtins.bool) else
                     int64 if isinstance(fill_value, (int, np.integer)) else self._default)
        shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
        if isinstance(fill_value, (int, float, np.integer, np.floating)) and not isinstance(
                fill_value, (bool, np.bool_)):
            _check_fits(float(fill_value) if isinstance(fill_value, (float, np.floating))
                        else int(fill_value), as_dtype(dtype))
        d = as_dtype(dtype)
        if isinstance(fill_value, (int, np.integer)) and not isinstance(fill_value, bool) and (
                d.kind == "u" and fill_value < 0):  # checked above: wraps as torch's cast
            fill_value = np.array(int(fill_value), np.int64).astype(d)
        return self._wrap(np.full(shape, fill_value, d), requires_grad, device)

    def zeros(self, *size: Any, out: Any = None, dtype: Any = None, requires_grad: bool = False,
              device: Any = None) -> Any:
        if out is not None:
            return write_factory_out(
                "zeros",
                lambda d: self.zeros(*size, dtype=d, device=device),
                out, dtype)
        return self._wrap(np.zeros(_shape(size), self._float(dtype)), requires_grad, device)

    def ones(self, *size: Any, out: Any = None, dtype: Any = None, requires_grad: bool = False,
             device: Any = None) -> Any:
        if out is not None:
            return write_factory_out(
                "ones",
                lambda d: self.ones(*size, dtype=d, device=device),
                out, dtype)
        return self._wrap(np.ones(_shape(size), self._float(dtype)), requires_grad, device)

    def empty(self, *size: Any, out: Any = None, dtype: Any = None, requires_grad: bool = False,
              device: Any = None) -> Any:
        if out is not None:
            return write_factory_out(
                "empty",
                lambda d: self.empty(*size, dtype=d, device=device),
                out, dtype, grad_words="cannot resize variables that require grad")
        return self.zeros(*size, dtype=dtype, requires_grad=requires_grad, device=device)

    def eye(self, n: int, m: Optional[int] = None, dtype: Any = None,
            requires_grad: bool = False, device: Any = None, *, out: Any = None) -> Any:
        if out is not None:
            return write_factory_out(
                "eye",
                lambda d: self.eye(n, m, d, device=device),
                out, dtype)
        for name, size in (("n", n), ("m", m)):
            if size is not None and size < 0:
                raise ArgumentError(f"{name} must be greater or equal to 0, got {size}")
        return self._wrap(np.eye(n, m, dtype=self._float(dtype)), requires_grad, device)

    def _tri_indices(self, name: str, row: int, col: int, offset: int, dtype: Any,
                     device: Any) -> Any:
        d = as_dtype(int64 if dtype is None else dtype)
        if d.kind not in "iu":
            raise NotImplementedError(f'"{name}" not implemented for '
                                      f"'{_TORCH_NAMES.get(d.name, d.name)}'")
        pick = np.triu_indices if name == "triu_indices" else np.tril_indices
        rows, cols = pick(int(row), int(offset), int(col))
        return self._wrap(np.stack([rows, cols]).astype(d).reshape(2, -1), False, device)

    def triu_indices(self, row: int, col: int, offset: int = 0, *, dtype: Any = None,
                     device: Any = None, layout: Any = None) -> Any:
        """The (2, N) coordinates of the upper triangle (from diagonal ``offset``) of a
        row x col matrix, row by row."""
        return self._tri_indices("triu_indices", row, col, offset, dtype, device)

    def tril_indices(self, row: int, col: int, offset: int = 0, *, dtype: Any = None,
                     device: Any = None, layout: Any = None) -> Any:
        """The (2, N) coordinates of the lower triangle (to diagonal ``offset``) of a row x col
        matrix, row by row."""
        return self._tri_indices("tril_indices", row, col, offset, dtype, device)

    def scalar_tensor(self, s: Any, *, dtype: Any = None, device: Any = None,
                      requires_grad: bool = False, layout: Any = None,
                      pin_memory: bool = False) -> Any:
        """A 0-d tensor of ``s`` in ``dtype`` (the default float dtype when not given)."""
        return self._wrap(np.asarray(s, dtype=self._float(dtype)), requires_grad, device)

    def arange(self, start: Any, end: Any = None, step: Any = 1, dtype: Any = None,
               requires_grad: bool = False, device: Any = None, *, out: Any = None) -> Any:
        if out is not None:
            return write_factory_out(
                "arange",
                lambda d: self.arange(start, end, step, d, device=device),
                out, dtype)
        if end is None:
            start, end = 0, start
        if step == 0:  # torch's checks: numpy divides by zero or gives an empty range
            raise RuntimeError("step must be nonzero")
        if (step > 0 and start > end) or (step < 0 and start < end):
            raise RuntimeError("upper bound and lower bound inconsistent with step sign")
        if dtype is None:
            ints = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
            dtype = int64 if ints else self._default
        d = as_dtype(dtype)
        _check_arange_length(start, end, step, d)
        if d.kind in "iub":
            return self._wrap(_int_range(start, end, step, d), requires_grad, device)
        return self._wrap(np.arange(start, end, step).astype(d), requires_grad, device)

    def linspace(self, start: Any, end: Any, steps: int, *, out: Any = None, dtype: Any = None,
                 requires_grad: bool = False, device: Any = None) -> Any:
        """``steps`` evenly spaced values from ``start`` to ``end`` inclusive, computed as
        torch's (the first half counted up from ``start``, the second down from ``end``)."""
        if out is not None:
            return write_factory_out(
                "linspace",
                lambda d: self.linspace(start, end, steps, dtype=d, device=device),
                out, dtype)
        return self._wrap(_spaced(start, end, steps, self._float(dtype), "linspace"),
                          requires_grad, device)

    def logspace(self, start: Any, end: Any, steps: int, base: float = 10.0, *, out: Any = None,
                 dtype: Any = None, requires_grad: bool = False, device: Any = None) -> Any:
        """``base ** linspace(start, end, steps)``, as torch's."""
        if out is not None:
            return write_factory_out(
                "logspace",
                lambda d: self.logspace(start, end, steps, base, dtype=d, device=device),
                out, dtype)
        d = self._float(dtype)
        if d.kind in "iub":  # torch casts start and end (not base) to the integer dtype
            start, end = _to_int(start), _to_int(end)
        exps = _spaced(start, end, steps, np.dtype(np.float64), "logspace")
        return self._wrap(np.power(float(base), exps).astype(d), requires_grad, device)

    def randn(self, *size: Any, generator: Any = None, out: Any = None, dtype: Any = None,
              requires_grad: bool = False, device: Any = None) -> Any:
        """Standard normal draws of shape ``size`` (torch's numbers for the same seed)."""
        if out is not None:
            return write_factory_out(
                "randn",
                lambda d: self.randn(*size, generator=generator, dtype=d, device=device),
                out, dtype, grad_words="cannot resize variables that require grad")
        shape, d = _shape(size), self._float(dtype)
        a = self._gen(generator).normal(math.prod(shape), _draw_dtype(d)).reshape(shape)
        return self._wrap(a.astype(d, copy=False), requires_grad, device)

    def rand(self, *size: Any, generator: Any = None, out: Any = None, dtype: Any = None,
             requires_grad: bool = False, device: Any = None) -> Any:
        """Uniform draws in [0, 1) of shape ``size``."""
        if out is not None:
            return write_factory_out(
                "rand",
                lambda d: self.rand(*size, generator=generator, dtype=d, device=device),
                out, dtype)
        shape, d = _shape(size), self._float(dtype)
        a = self._gen(generator).uniform(math.prod(shape), _draw_dtype(d)).reshape(shape)
        return self._wrap(a.astype(d, copy=False), requires_grad, device)

    def randint(self, *args: Any, size: Any = None, low: Any = None, high: Any = None,
                generator: Any = None, out: Any = None, dtype: Any = None,
                requires_grad: bool = False, device: Any = None) -> Any:
        """Integers drawn uniformly from ``[low, high)``: ``randint(high, size)`` or
        ``randint(low, high, size)``, each also by keyword, as torch's."""
        if out is not None:
            return write_factory_out(
                "randint",
                lambda d: self.randint(*args, size=size, low=low, high=high, generator=generator,
                                       dtype=d, device=device),
                out, dtype)
        if low is not None:
            args = (low,) + args
        if high is not None:
            args = args[:1] + (high,) + args[1:] if low is not None else (high,) + args
        low, high, size = _randint_args(args, size)
        shape = tuple(int(s) for s in size)
        d = as_dtype(dtype or int64)
        if requires_grad and d.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        a = self._gen(generator).integers(math.prod(shape), low, high).reshape(shape)
        return self._wrap(a.astype(d), requires_grad, device)

    def randperm(self, n: int, *, generator: Any = None, out: Any = None, dtype: Any = None,
                 requires_grad: bool = False, device: Any = None) -> Any:
        """A random permutation of ``0 .. n-1`` (torch's for the same seed)."""
        if out is not None:
            return write_factory_out(
                "randperm",
                lambda d: self.randperm(n, generator=generator, dtype=d, device=device),
                out, dtype)
        if isinstance(n, builtins.bool) or not isinstance(n, (int, np.integer)):
            raise TypeError(f"randperm(): argument 'n' must be int, not {type(n).__name__}")
        if n < 0:
            raise RuntimeError(f"n must be non-negative, got{n}")
        a = self._gen(generator).permutation(int(n))
        return self._wrap(a.astype(as_dtype(dtype or int64)), requires_grad, device)

    # -- sampling from given parameters (Note [The same numbers as torch]) --------------------

    def normal(self, mean: Any = 0.0, std: Any = 1.0, size: Any = None, *, generator: Any = None,
               out: Any = None, dtype: Any = None, requires_grad: bool = False,
               device: Any = None, layout: Any = None, pin_memory: bool = False) -> Any:
        """Normal draws with the given ``mean`` and ``std`` (tensors, broadcast, or numbers with
        ``size``), as ``torch.normal``. The result is a new leaf: torch's gradient of a draw with
        respect to ``mean``/``std`` is zero, so nothing is recorded."""
        if out is not None:
            def draw(mean: Any, std: Any, d: Any = dtype) -> Any:
                return self.normal(mean, std, size, generator=generator, dtype=d, device=device)
            if is_tensor(mean) or is_tensor(std):  # the parameters' dtype, as without out=
                return write_out("normal", draw, (mean, std), {}, out)
            return write_factory_out("normal", lambda d: draw(mean, std, d), out, dtype)
        m, s = _param(mean), _param(std)
        if not is_tensor(mean) and not is_tensor(std):
            if size is None:
                raise TypeError("normal() received an invalid combination of arguments - "
                                "with float mean and std, size is required")
            shape, d = _shape((size,)), self._float(dtype)
        else:
            shape = np.broadcast_shapes(m.shape, s.shape)
            d = (mean if is_tensor(mean) else std).dtype if dtype is None else as_dtype(dtype)
        if np.any(s < 0):
            raise RuntimeError(f"normal expects std >= 0.0, but found std {s.min()}")
        z = self._gen(generator).normal(math.prod(shape), _draw_dtype(d)).reshape(shape)
        return self._wrap(z.astype(d) * s.astype(d) + m.astype(d), requires_grad, device)

    def bernoulli(self, input: Any, p: Any = None, *, generator: Any = None,
                  out: Any = None) -> Any:
        """0/1 draws with probabilities ``input`` (or the number ``p``), in ``input``'s dtype."""
        if out is not None:
            return write_out("bernoulli", self.bernoulli, (input, p), {"generator": generator},
                             out)
        shape = tuple(input.shape)
        g = self._gen(generator)
        probs: Any
        if p is None:
            probs = np.asarray(input.detach())
            if np.any((probs < 0) | (probs > 1)) or np.any(np.isnan(probs)):
                raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
            # torch draws in the probabilities' precision: 24 bits for float32, 53 for float64
            u = g.uniform(math.prod(shape), _draw_dtype(probs.dtype)).reshape(shape)
        else:
            probs = _check_p(p)
            u = g.uniform64(math.prod(shape)).reshape(shape)
        return self._wrap((u < probs).astype(input.dtype), False, None)

    def multinomial(self, input: Any, num_samples: int, replacement: bool = False, *,
                    generator: Any = None, out: Any = None) -> Any:
        """Indices drawn from the rows of ``input`` (unnormalised weights), as
        ``torch.multinomial``: each row, ``num_samples`` draws with or without replacement."""
        if out is not None:
            return write_out("multinomial", self.multinomial, (input, num_samples, replacement),
                             {"generator": generator}, out)
        w = np.asarray(input.detach(), dtype=np.float64)
        if w.ndim not in (1, 2):
            raise RuntimeError("prob_dist must be 1 or 2 dim")
        if not is_floating(input.dtype):
            raise RuntimeError("multinomial only supports floating-point dtypes for input, "
                               f"got: {_TORCH_NAMES.get(input.dtype.name, input.dtype)}")
        if w.shape[-1] == 0 or (w.ndim == 2 and w.shape[0] == 0):
            raise RuntimeError("cannot sample from an empty distribution")
        if not replacement and num_samples > w.shape[-1]:
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                               "replacement")
        if num_samples <= 0:
            raise RuntimeError("cannot sample n_sample <= 0 samples")
        if not np.all(np.isfinite(w)):
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry = infinity or NaN)")
        if np.any(w < 0):
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry < 0)")
        rows = w.reshape(-1, w.shape[-1])
        if np.any(rows.sum(axis=1) <= 0):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        rng = self._gen(generator).numpy()
        out = np.empty((rows.shape[0], num_samples), np.int64)
        for i, row in enumerate(rows):
            if replacement:
                out[i] = rng.choice(row.shape[0], size=num_samples, p=row / row.sum())
            else:  # the exponential race: the num_samples smallest E_k / w_k, zeros last
                with np.errstate(divide="ignore"):
                    key = rng.exponential(size=row.shape[0]) / row
                out[i] = np.argsort(key, kind="stable")[:num_samples]
        return self._wrap(out.reshape(w.shape[:-1] + (num_samples,)), False, None)

    def poisson(self, input: Any, generator: Any = None) -> Any:
        """Poisson draws with rates ``input``, in ``input``'s dtype."""
        lam = np.asarray(input.detach(), dtype=np.float64)
        if np.any(lam < 0) or np.any(np.isnan(lam)):
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        draw = self._gen(generator).numpy().poisson(lam)
        return self._wrap(np.asarray(draw).astype(input.dtype), False, None)

    # torch's *_like keywords: layout, pin_memory and memory_format are accepted (one strided
    # CPU layout here; a new tensor is contiguous, torch's preserve_format for a dense input).
    def zeros_like(self, x: Any, dtype: Any = None, requires_grad: bool = False,
                   device: Any = None, *, layout: Any = None, pin_memory: bool = False,
                   memory_format: Any = None) -> Any:
        shape, d = _like(x, dtype)
        return self._wrap(_laid_out_like(x, np.zeros(shape, d), memory_format, "zeros_like"),
                          requires_grad, device)

    def ones_like(self, x: Any, dtype: Any = None, requires_grad: bool = False,
                  device: Any = None, *, layout: Any = None, pin_memory: bool = False,
                  memory_format: Any = None) -> Any:
        shape, d = _like(x, dtype)
        return self._wrap(_laid_out_like(x, np.ones(shape, d), memory_format, "ones_like"),
                          requires_grad, device)

    def empty_like(self, x: Any, dtype: Any = None, requires_grad: bool = False,
                   device: Any = None, *, layout: Any = None, pin_memory: bool = False,
                   memory_format: Any = None) -> Any:
        return self.zeros_like(x, dtype, requires_grad, device, memory_format=memory_format)

    def full_like(self, x: Any, fill_value: Any, dtype: Any = None,
                  requires_grad: bool = False, device: Any = None, *, layout: Any = None,
                  pin_memory: bool = False, memory_format: Any = None) -> Any:
        shape, d = _like(x, dtype)
        return self._wrap(_laid_out_like(x, np.full(shape, fill_value, d), memory_format,
                                         "full_like"), requires_grad, device)

    def empty_strided(self, size: Any, stride: Any, *, dtype: Any = None, layout: Any = None,
                      device: Any = None, requires_grad: bool = False,
                      pin_memory: bool = False) -> Any:
        """A tensor of ``size`` laid out with ``stride`` (in elements) over a storage just large
        enough for it, as torch's; zero-filled (torch leaves it uninitialised)."""
        size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
        if len(size) != len(stride):
            raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match "
                               f"dimensionality of strides ({len(stride)})")
        if any(s < 0 for s in size):
            raise RuntimeError(f"Trying to create tensor with negative dimension "
                               f"{min(size)}: {list(size)}")
        if any(st < 0 for st in stride):
            raise RuntimeError("empty_strided: negative strides are not supported")
        d = np.dtype(self._float(dtype))
        n = 0 if 0 in size else 1 + builtins.sum((s - 1) * st for s, st in zip(size, stride))
        storage = np.zeros(n, d)
        a = np.lib.stride_tricks.as_strided(storage, size, tuple(st * d.itemsize for st in stride))
        return self._wrap(a, requires_grad, device)

    def randn_like(self, x: Any, *, generator: Any = None, dtype: Any = None,
                   requires_grad: bool = False, device: Any = None,
                   memory_format: Any = None) -> Any:
        shape, d = _like(x, dtype)
        out = self.randn(shape, generator=generator, dtype=d, device=device)
        order = like_order(x, memory_format, "randn_like")
        if order is not None:
            out = self._backend.from_numpy(laid_out(np.asarray(out), order))
        return out.requires_grad_(True) if requires_grad else out

    def rand_like(self, x: Any, *, generator: Any = None, dtype: Any = None,
                   requires_grad: bool = False, device: Any = None,
                   memory_format: Any = None) -> Any:
        shape, d = _like(x, dtype)
        out = self.rand(shape, generator=generator, dtype=d, device=device)
        order = like_order(x, memory_format, "rand_like")
        if order is not None:
            out = self._backend.from_numpy(laid_out(np.asarray(out), order))
        return out.requires_grad_(True) if requires_grad else out

    def randint_like(self, x: Any, low: int = 0, high: Any = None, *, generator: Any = None,
                     dtype: Any = None, requires_grad: bool = False, device: Any = None) -> Any:
        """``randint_like(x, high)`` or ``randint_like(x, low, high)``, in ``x``'s dtype."""
        if high is None:
            low, high = 0, low
        shape, d = _like(x, dtype)
        return self.randint(low, high, shape, generator=generator, dtype=d,
                            requires_grad=requires_grad, device=device)

    def is_tensor(self, x: Any) -> bool:
        """Whether ``x`` is a tensor of this engine."""
        return isinstance(x, self._backend.Tensor)

    def numel(self, x: Any) -> int:
        return math.prod(x.shape)


# Note [Factories per engine]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# What creates tensors from nothing needs an engine that no argument names, and each engine keeps
# its own default dtype. The random generator is one per process, as torch's
# ``default_generator`` (transgrad/_random.py): ``manual_seed`` on either engine seeds it.
# So each engine module makes one ``Factories(backend)`` and binds its methods by name, in the
# open (transgrad/_compiled.py, transgrad/reference/__init__.py); a test checks that both
# export the same names. ``NAMES`` is the list they bind.
NAMES = ("get_default_dtype", "set_default_dtype", "manual_seed", "seed", "initial_seed",
         "get_rng_state", "set_rng_state", "tensor", "as_tensor", "from_numpy", "full", "zeros",
         "ones", "empty", "eye", "arange", "linspace", "randn", "rand", "randint", "randperm",
         "zeros_like", "ones_like", "empty_like", "full_like", "randn_like", "rand_like",
         "randint_like", "normal", "bernoulli", "multinomial", "poisson", "logspace", "is_tensor",
         "numel", "from_dlpack", "triu_indices", "tril_indices", "scalar_tensor", "empty_strided",
         "asarray")


_C_NAMES = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int",
            "int64": "int64_t", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "float32": "float"}


def _check_fits(v: Any, d: Any) -> None:
    """torch's check of a scalar argument against the result dtype (linspace(0, 300) in int8,
    linspace(0, 70000) in float16 gave wrapped values or NaN before)."""
    d = np.dtype(d)  # numpy's names: str() of a transgrad dtype is torch's ("torch.int8")
    name = _C_NAMES.get(str(d))
    if name is None or isinstance(v, complex):
        return
    if d.kind in "iu":
        ok = _fits_integer(np.asarray(v), d)
    else:
        ok = not math.isfinite(v) or abs(v) <= float(_finfo_max(d))
    if not ok:
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")


def _fits_integer(a: np.ndarray, d: Any) -> bool:
    """Whether every value of ``a`` (Python numbers as an array) converts to the integer dtype
    ``d`` without overflow, by c10's ``overflows()`` as torch checks scalars: a float must lie in
    [lowest, max] compared in double (NaN and inf never do); an int may also wrap into an
    unsigned type from -max on (``tensor([-1], dtype=uint8)`` and ``full((2,), -1, dtype=uint8)``
    are 255)."""
    info = np.iinfo(d)
    if a.dtype.kind == "f":
        return bool((np.isfinite(a) & (a >= info.min) & (a <= float(info.max))).all())
    low = -info.max if info.min == 0 else info.min
    return bool(((a >= low) & (a <= info.max)).all())


def _finfo_max(d: np.dtype) -> float:
    return {"float16": 65504.0, "bfloat16": 3.3895313892515355e38}.get(
        str(d), float(np.finfo(d).max) if d.kind == "f" else math.inf)


def _spaced(start: Any, end: Any, steps: int, d: np.dtype, name: str) -> np.ndarray:
    """torch's evenly spaced values: ``start + i * step`` for the first half, ``end - (steps -
    1 - i) * step`` for the rest, in the result's precision."""
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        got = ", ".join("Tensor" if is_tensor(v) else type(v).__name__ for v in (start, end, steps))
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                        f"but expected (start, end, int steps): argument 'steps' must be int, "
                        f"not {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start = float(start.item()) if is_tensor(start) else start
    end = float(end.item()) if is_tensor(end) else end
    if name == "linspace":
        _check_fits(start, d)
        _check_fits(end, d)
        if d.kind in "iub":  # torch casts the ends to the integer dtype, then steps in double
            start, end = _to_int(start), _to_int(end)
    work = np.float64 if d.kind != "f" else d.type
    if steps == 1:
        return np.array([start], dtype=work).astype(d)
    i = np.arange(steps)
    step = (work(end) - work(start)) / work(steps - 1)
    if d.kind in "iub" or name == "logspace":  # torch's integer kernels do not fuse
        up = work(start) + i.astype(work) * step
        down = work(end) - (steps - 1 - i).astype(work) * step
    else:
        up = fused_multiply_add(i.astype(work), step, work(start))
        down = fused_multiply_add(-(steps - 1 - i).astype(work), step, work(end))
    return np.where(i < steps // 2, up, down).astype(d)


def _to_int(v: Any) -> int:
    """A Python number as C++'s conversion to an integer makes it (toward zero)."""
    return int(v) if isinstance(v, (bool, int, np.integer)) else math.trunc(float(v))


def _int_range(start: Any, end: Any, step: Any, d: Any) -> np.ndarray:
    """torch's ``arange`` for an integer dtype: the bounds and step converted to integers
    (toward zero) before anything is counted; the length counted in integers for int64, in
    double (from the bounds as given) for the narrower types, as torch's kernel does."""
    xstart, xend, xstep = _to_int(start), _to_int(end), _to_int(step)
    if xstep == 0:
        raise RuntimeError("step must be nonzero")
    if d == np.dtype(np.int64):
        q = xend - xstart + xstep - (1 if xstep > 0 else -1)
        n = abs(q) // abs(xstep) * (1 if (q >= 0) == (xstep > 0) else -1)  # C++'s q / xstep
    else:
        n = math.ceil((float(end) - float(start)) / float(step))
    n = max(int(n), 0)
    return (xstart + xstep * np.arange(n, dtype=np.int64)).astype(d)


def _param(v: Any) -> np.ndarray:
    return np.asarray(v.detach() if is_tensor(v) else v, dtype=np.float64)


def _check_p(p: Any) -> float:
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return p


def _draw_dtype(d: np.dtype) -> np.dtype:
    """The precision torch draws in for a result dtype: float64 for float64, else float32."""
    return np.dtype(np.float64) if d == np.float64 else np.dtype(np.float32)


def _randint_args(args: tuple, size: Any) -> tuple:
    """``(low, high, size)`` from torch's forms ``(high, size)``, ``(low, high, size)`` and size
    as a keyword."""
    ints = [a for a in args if isinstance(a, (int, np.integer)) and not isinstance(a, bool)]
    rest = args[len(ints):]
    if size is None and len(rest) == 1:
        size, rest = rest[0], ()
    if rest or size is None or not 1 <= len(ints) <= 2:
        raise TypeError("randint() received an invalid combination of arguments - expected "
                        "(int high, tuple of ints size, ...) or (int low, int high, tuple of "
                        "ints size, ...)")
    low, high = (0, int(ints[0])) if len(ints) == 1 else (int(ints[0]), int(ints[1]))
    if not low < high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    return low, high, (size,) if isinstance(size, (int, np.integer)) else tuple(size)


def _laid_out_like(x: Any, a: np.ndarray, memory_format: Any, fname: str) -> np.ndarray:
    """``a`` (``x``'s shape) laid out as ``memory_format`` asks (Note [Memory formats are
    stride orders] in memory_formats.py: preserve keeps a dense ``x``'s strides, as torch)."""
    return laid_out(a, like_order(x, memory_format, fname))


def _like(x: Any, dtype: Any) -> tuple:
    return tuple(x.shape), x.dtype if dtype is None else as_dtype(dtype)


def _flat(data: Any) -> list:
    out, stack = [], [data]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        else:
            out.append(v)
    return out
