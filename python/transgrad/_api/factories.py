"""Tensor creation: ``tensor``, ``from_numpy``, ``zeros``/``ones``/``full``/``arange``/``randn``...,
the dtype objects, the default dtype and the seeded random generator.

Dtypes are numpy dtype objects (``float32 == np.float32`` holds, and ``t.dtype`` is one).
Creation follows PyTorch: Python floats give the default dtype (float32), ints int64, bools
bool; numpy arrays keep their dtype (mapped onto the supported ones when copied).
"""

from __future__ import annotations

import builtins
import math
from typing import Any, Optional

import numpy as np

from transgrad._api.dlpack import array_from_dlpack
from transgrad._backend import is_tensor
from transgrad._device import check_device
from transgrad._dtypes import (  # noqa: F401  (the dtype objects are exported from here)
    SUPPORTED,
    as_dtype,
    bool_,
    canonical,
    complex128,
    float32,
    float64,
    int64,
    is_floating,
)


def _shape(size: Any) -> tuple:
    """``zeros(2, 3)`` and ``zeros((2, 3))`` alike."""
    if len(size) == 1 and not isinstance(size[0], (int, np.integer)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


class Factories:
    """The creation functions of one engine, with its state: the default dtype and the seeded
    random generator (Note [Factories per engine])."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend
        self._default = float32
        self._rng = np.random.default_rng(0)

    def get_default_dtype(self) -> np.dtype:
        return self._default

    def set_default_dtype(self, dtype: Any) -> None:
        d = as_dtype(dtype)
        if not is_floating(d):
            raise TypeError("only floating-point types are supported as the default type")
        self._default = d

    def manual_seed(self, seed: int) -> Any:
        """Seed the generator used by randn/rand/randint/randperm (same seed, same numbers, in
        both engines)."""
        self._rng = np.random.default_rng(int(seed))
        return self._rng

    def _wrap(self, a: np.ndarray, requires_grad: bool, device: Any = None) -> Any:
        check_device(device)  # the CPU, or a clear error (transgrad/_device.py)
        t = self._backend.from_numpy(a)
        if requires_grad:
            t.requires_grad_(True)
        return t

    def _float(self, dtype: Any) -> np.dtype:
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
            a = a.astype(as_dtype(dtype), copy=False)
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
        if isinstance(data, np.ndarray) and data.dtype in SUPPORTED and (
                dtype is None or as_dtype(dtype) == data.dtype):
            check_device(device)
            return self._backend.from_numpy(data)
        return self.tensor(data, dtype, device=device)

    def from_numpy(self, a: np.ndarray) -> Any:
        """A tensor sharing memory with the numpy array ``a``."""
        if not isinstance(a, np.ndarray):
            raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(a).__name__}")
        if a.dtype not in SUPPORTED:
            raise TypeError(f"can't convert np.ndarray of type {a.dtype}. The only supported "
                            "types are: float64, float32, float16, bfloat16, complex128, int64, "
                            "int32, int16, int8, uint8, and bool.")
        return self._backend.from_numpy(a)

    def from_dlpack(self, ext_tensor: Any) -> Any:
        """A tensor sharing memory with a DLPack producer (Note [DLPack through numpy])."""
        a = array_from_dlpack(ext_tensor)
        if a.dtype not in SUPPORTED:
            raise TypeError(f"from_dlpack: dtype {a.dtype} has no transgrad tensor type")
        return self._backend.from_numpy(a)

    def full(self, size: Any, fill_value: Any, dtype: Any = None,
             requires_grad: bool = False, device: Any = None) -> Any:
        if dtype is None:
            dtype = (bool_ if isinstance(fill_value, builtins.bool) else
                     int64 if isinstance(fill_value, (int, np.integer)) else self._default)
        shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
        return self._wrap(np.full(shape, fill_value, as_dtype(dtype)), requires_grad, device)

    def zeros(self, *size: Any, dtype: Any = None, requires_grad: bool = False,
              device: Any = None) -> Any:
        return self._wrap(np.zeros(_shape(size), self._float(dtype)), requires_grad, device)

    def ones(self, *size: Any, dtype: Any = None, requires_grad: bool = False,
             device: Any = None) -> Any:
        return self._wrap(np.ones(_shape(size), self._float(dtype)), requires_grad, device)

    def empty(self, *size: Any, dtype: Any = None, requires_grad: bool = False,
              device: Any = None) -> Any:
        return self.zeros(*size, dtype=dtype, requires_grad=requires_grad, device=device)

    def eye(self, n: int, m: Optional[int] = None, dtype: Any = None,
            requires_grad: bool = False, device: Any = None) -> Any:
        return self._wrap(np.eye(n, m, dtype=self._float(dtype)), requires_grad, device)

    def arange(self, start: Any, end: Any = None, step: Any = 1, dtype: Any = None,
               requires_grad: bool = False, device: Any = None) -> Any:
        if end is None:
            start, end = 0, start
        if dtype is None:
            ints = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
            dtype = int64 if ints else self._default
        return self._wrap(np.arange(start, end, step).astype(as_dtype(dtype)),
                          requires_grad, device)

    def linspace(self, start: float, end: float, steps: int, dtype: Any = None,
                 requires_grad: bool = False, device: Any = None) -> Any:
        return self._wrap(np.linspace(start, end, steps).astype(self._float(dtype)),
                          requires_grad, device)

    def randn(self, *size: Any, dtype: Any = None, requires_grad: bool = False,
              generator: Any = None, device: Any = None) -> Any:
        rng = generator or self._rng
        return self._wrap(rng.standard_normal(_shape(size)).astype(self._float(dtype)),
                          requires_grad, device)

    def rand(self, *size: Any, dtype: Any = None, requires_grad: bool = False,
             generator: Any = None, device: Any = None) -> Any:
        rng = generator or self._rng
        return self._wrap(rng.random(_shape(size)).astype(self._float(dtype)),
                          requires_grad, device)

    def randint(self, low: int, high: Any = None, size: Any = (), dtype: Any = None,
                device: Any = None) -> Any:
        if high is None:
            low, high = 0, low
        a = self._rng.integers(low, high, size=tuple(size))
        return self._wrap(a.astype(as_dtype(dtype or int64)), False, device)

    def randperm(self, n: int, dtype: Any = None, device: Any = None) -> Any:
        return self._wrap(self._rng.permutation(n).astype(as_dtype(dtype or int64)), False, device)

    def zeros_like(self, x: Any, dtype: Any = None, requires_grad: bool = False,
                   device: Any = None) -> Any:
        shape, d = _like(x, dtype)
        return self._wrap(np.zeros(shape, d), requires_grad, device)

    def ones_like(self, x: Any, dtype: Any = None, requires_grad: bool = False,
                  device: Any = None) -> Any:
        shape, d = _like(x, dtype)
        return self._wrap(np.ones(shape, d), requires_grad, device)

    def empty_like(self, x: Any, dtype: Any = None, requires_grad: bool = False,
                   device: Any = None) -> Any:
        return self.zeros_like(x, dtype, requires_grad, device)

    def full_like(self, x: Any, fill_value: Any, dtype: Any = None,
                  requires_grad: bool = False, device: Any = None) -> Any:
        shape, d = _like(x, dtype)
        return self._wrap(np.full(shape, fill_value, d), requires_grad, device)

    def randn_like(self, x: Any, dtype: Any = None, requires_grad: bool = False,
                   device: Any = None) -> Any:
        shape, d = _like(x, dtype)
        return self._wrap(self._rng.standard_normal(shape).astype(d), requires_grad, device)

    def rand_like(self, x: Any, dtype: Any = None, requires_grad: bool = False,
                  device: Any = None) -> Any:
        shape, d = _like(x, dtype)
        return self._wrap(self._rng.random(shape).astype(d), requires_grad, device)

    def is_tensor(self, x: Any) -> bool:
        """Whether ``x`` is a tensor of this engine."""
        return isinstance(x, self._backend.Tensor)

    def numel(self, x: Any) -> int:
        return math.prod(x.shape)


# Note [Factories per engine]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# What creates tensors from nothing needs an engine that no argument names, and each engine keeps
# its own default dtype and random generator (the same seed gives the same numbers in both).
# So each engine module makes one ``Factories(backend)`` and binds its methods by name, in the
# open (transgrad/_compiled.py, transgrad/reference/__init__.py); a test checks that both
# export the same names. ``NAMES`` is the list they bind.
NAMES = ("get_default_dtype", "set_default_dtype", "manual_seed", "tensor", "as_tensor",
         "from_numpy", "full", "zeros", "ones", "empty", "eye", "arange", "linspace", "randn",
         "rand", "randint", "randperm", "zeros_like", "ones_like", "empty_like", "full_like",
         "randn_like", "rand_like", "is_tensor", "numel", "from_dlpack")


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
