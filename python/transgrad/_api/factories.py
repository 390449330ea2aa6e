"""Tensor creation: ``tensor``, ``from_numpy``, ``zeros``/``ones``/``full``/``arange``/``randn``...,
the dtype objects, the default dtype and the seeded random generator.

Dtypes are numpy dtype objects (``float32 == np.float32`` holds, and ``t.dtype`` is one).
Creation follows PyTorch: Python floats give the default dtype (float32), ints int64, bools
bool; numpy arrays keep their dtype (mapped onto the supported ones when copied).
"""

from __future__ import annotations

import builtins
import math
from typing import Any, Dict, Optional

import numpy as np

from transgrad._dtypes import (  # noqa: F401  (the dtype objects are exported from here)
    SUPPORTED,
    as_dtype,
    bool_,
    canonical,
    complex128,
    float32,
    float64,
    int64,
)


def _shape(size: Any) -> tuple:
    """``zeros(2, 3)`` and ``zeros((2, 3))`` alike."""
    if len(size) == 1 and not isinstance(size[0], (int, np.integer)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def make_factories(B: Any) -> Dict[str, Any]:
    T = B.Tensor
    state: Dict[str, Any] = {"default": float32, "rng": np.random.default_rng(0)}

    def get_default_dtype() -> np.dtype:
        return state["default"]

    def set_default_dtype(dtype: Any) -> None:
        d = as_dtype(dtype)
        if d.kind != "f":
            raise TypeError("only floating-point types are supported as the default type")
        state["default"] = d

    def manual_seed(seed: int) -> Any:
        """Seed the generator used by randn/rand/randint/randperm (same seed, same numbers, in
        both engines)."""
        state["rng"] = np.random.default_rng(int(seed))
        return state["rng"]

    def _wrap(a: np.ndarray, requires_grad: bool) -> Any:
        t = B.from_numpy(a)
        if requires_grad:
            t.requires_grad_(True)
        return t

    def _float(dtype: Any) -> np.dtype:
        return state["default"] if dtype is None else as_dtype(dtype)

    def tensor(data: Any, dtype: Any = None, requires_grad: bool = False,
               device: Any = None) -> Any:
        """A new tensor holding a copy of ``data`` (nested lists, numbers, arrays, tensors)."""
        if isinstance(data, T):
            a = np.array(data.detach(), copy=True)
        elif isinstance(data, (list, tuple)) and any(isinstance(v, T) for v in _flat(data)):
            a = np.array([np.asarray(v.detach()) if isinstance(v, T) else v for v in data])
        else:
            a = np.array(data, copy=True)
        if dtype is not None:
            a = a.astype(as_dtype(dtype), copy=False)
        elif not isinstance(data, (np.ndarray, np.generic, T)) and a.dtype.kind == "f":
            a = a.astype(state["default"], copy=False)  # Python floats: the default dtype
        else:
            a = canonical(a)
        return _wrap(np.asarray(a, order="C"), requires_grad)

    def as_tensor(data: Any, dtype: Any = None) -> Any:
        if isinstance(data, T) and (dtype is None or as_dtype(dtype) == data.dtype):
            return data
        if isinstance(data, np.ndarray) and data.dtype in SUPPORTED and (
                dtype is None or as_dtype(dtype) == data.dtype):
            return B.from_numpy(data)
        return tensor(data, dtype)

    def from_numpy(a: np.ndarray) -> Any:
        """A tensor sharing memory with the numpy array ``a``."""
        if not isinstance(a, np.ndarray):
            raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(a).__name__}")
        if a.dtype not in SUPPORTED:
            raise TypeError(f"can't convert np.ndarray of type {a.dtype}: the supported types "
                            "are float64, float32, int64, bool (and complex128); convert it "
                            "first, e.g. a.astype(np.float64)")
        return B.from_numpy(a)

    def full(size: Any, fill_value: Any, dtype: Any = None, requires_grad: bool = False) -> Any:
        if dtype is None:
            dtype = (bool_ if isinstance(fill_value, builtins.bool) else
                     int64 if isinstance(fill_value, (int, np.integer)) else state["default"])
        shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
        return _wrap(np.full(shape, fill_value, as_dtype(dtype)), requires_grad)

    def zeros(*size: Any, dtype: Any = None, requires_grad: bool = False) -> Any:
        return _wrap(np.zeros(_shape(size), _float(dtype)), requires_grad)

    def ones(*size: Any, dtype: Any = None, requires_grad: bool = False) -> Any:
        return _wrap(np.ones(_shape(size), _float(dtype)), requires_grad)

    def empty(*size: Any, dtype: Any = None, requires_grad: bool = False) -> Any:
        return zeros(*size, dtype=dtype, requires_grad=requires_grad)

    def eye(n: int, m: Optional[int] = None, dtype: Any = None, requires_grad: bool = False) -> Any:
        return _wrap(np.eye(n, m, dtype=_float(dtype)), requires_grad)

    def arange(start: Any, end: Any = None, step: Any = 1, dtype: Any = None,
               requires_grad: bool = False) -> Any:
        if end is None:
            start, end = 0, start
        if dtype is None:
            ints = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
            dtype = int64 if ints else state["default"]
        return _wrap(np.arange(start, end, step).astype(as_dtype(dtype)), requires_grad)

    def linspace(start: float, end: float, steps: int, dtype: Any = None,
                 requires_grad: bool = False) -> Any:
        return _wrap(np.linspace(start, end, steps).astype(_float(dtype)), requires_grad)

    def randn(*size: Any, dtype: Any = None, requires_grad: bool = False,
              generator: Any = None) -> Any:
        rng = generator or state["rng"]
        return _wrap(rng.standard_normal(_shape(size)).astype(_float(dtype)), requires_grad)

    def rand(*size: Any, dtype: Any = None, requires_grad: bool = False,
             generator: Any = None) -> Any:
        rng = generator or state["rng"]
        return _wrap(rng.random(_shape(size)).astype(_float(dtype)), requires_grad)

    def randint(low: int, high: Any = None, size: Any = (), dtype: Any = None) -> Any:
        if high is None:
            low, high = 0, low
        a = state["rng"].integers(low, high, size=tuple(size))
        return _wrap(a.astype(as_dtype(dtype or int64)), False)

    def randperm(n: int, dtype: Any = None) -> Any:
        return _wrap(state["rng"].permutation(n).astype(as_dtype(dtype or int64)), False)

    def _like(x: Any, dtype: Any) -> tuple:
        return tuple(x.shape), x.dtype if dtype is None else as_dtype(dtype)

    def zeros_like(x: Any, dtype: Any = None, requires_grad: bool = False) -> Any:
        shape, d = _like(x, dtype)
        return _wrap(np.zeros(shape, d), requires_grad)

    def ones_like(x: Any, dtype: Any = None, requires_grad: bool = False) -> Any:
        shape, d = _like(x, dtype)
        return _wrap(np.ones(shape, d), requires_grad)

    def empty_like(x: Any, dtype: Any = None, requires_grad: bool = False) -> Any:
        return zeros_like(x, dtype, requires_grad)

    def full_like(x: Any, fill_value: Any, dtype: Any = None, requires_grad: bool = False) -> Any:
        shape, d = _like(x, dtype)
        return _wrap(np.full(shape, fill_value, d), requires_grad)

    def randn_like(x: Any, dtype: Any = None, requires_grad: bool = False) -> Any:
        shape, d = _like(x, dtype)
        return _wrap(state["rng"].standard_normal(shape).astype(d), requires_grad)

    def rand_like(x: Any, dtype: Any = None, requires_grad: bool = False) -> Any:
        shape, d = _like(x, dtype)
        return _wrap(state["rng"].random(shape).astype(d), requires_grad)

    def is_tensor(x: Any) -> bool:
        return isinstance(x, T)

    def numel(x: Any) -> int:
        return math.prod(x.shape)

    out = {k: v for k, v in locals().items() if callable(v) and not k.startswith("_")
           and k not in ("B", "T")}
    out.update(float32=float32, float64=float64, int64=int64, bool=bool_,
               complex128=complex128, float=float32, double=float64, long=int64)
    return out


def _flat(data: Any) -> list:
    out, stack = [], [data]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        else:
            out.append(v)
    return out
