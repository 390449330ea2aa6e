"""Helpers every numpy kernel module of the reference engine shares: the Tensor wrapping
(``_arr``, ``_new``, ``_view``: the only code that knows the Tensor class), the dtype rules
(Note [Reference kernels] in kernels.py), dims and sizes checking, broadcasting operands.

kernels.py, kernels_nn.py and kernels_special.py import these; this module imports none of them,
so the kernel modules form no import cycle.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from transgrad import _dtypes
from transgrad._errors import ArgumentError

# ---------------------------------------------------------------------------------------------
# The only code that knows the Tensor class.


_TENSOR: Any = None


def _tensor_class() -> Any:
    global _TENSOR
    if _TENSOR is None:  # imported late: tensor.py is free to import this module
        from transgrad.reference.tensor import Tensor

        _TENSOR = Tensor
    return _TENSOR


def _arr(t: Any) -> np.ndarray:
    """The numpy array behind a reference Tensor (array-likes are accepted too, for tests)."""
    if isinstance(t, np.ndarray):
        return t
    data = getattr(t, "_data", None)
    if isinstance(data, np.ndarray):
        return data
    a = np.asarray(t) if t is not None else None
    if a is None or a.dtype == object:
        raise TypeError(f"expected a Tensor, got {type(t).__name__} (an undefined gradient "
                        "arrives as None: test `grad is None`, or use materialize_grads=True)")
    return a


def _new(a: Any) -> Any:
    """A fresh Tensor owning ``a`` (converted to one of the supported dtypes)."""
    return _tensor_class()._from_array(_canonical(np.asarray(a)))


def _view(a: np.ndarray, base: Any) -> Any:
    """A Tensor over ``a``, a numpy view of ``base``'s array: same storage, same version counter."""
    cls = _tensor_class()
    return cls._view_of(base, a) if isinstance(base, cls) else cls._from_array(a)


# ---------------------------------------------------------------------------------------------
# Dtypes

_BOOL, _INT, _F32, _F64, _C128 = (np.dtype(n) for n in ("bool", "int64", "float32", "float64",
                                                         "complex128"))
_RANK = frozenset(d.dtype for d in _dtypes.SUPPORTED)  # the supported numpy dtypes
_NAMES = {d.name: d.dtype for d in _dtypes.SUPPORTED}
# The engine's default dtype, as the kernels see it (Factories.set_default_dtype sets it).
_DEFAULT_DTYPE = [_dtypes.float32]


def set_default_dtype(dtype: Any) -> None:
    """The default dtype of the reference kernels: true division of integers and a float next to
    an integer tensor give it (Note [Type promotion] in transgrad/_dtypes.py)."""
    _DEFAULT_DTYPE[0] = _dtypes.as_dtype(dtype)


def _canonical(a: np.ndarray) -> np.ndarray:
    """Map numpy dtypes onto the supported ones (uint16/32/64 -> int64, longdouble -> float64)."""
    dt = a.dtype
    if dt in _RANK:
        return a
    if dt.kind in "iu":
        return a.astype(_INT)
    if dt.kind == "f":
        return a.astype(_F64)
    if dt.kind == "c":
        return a.astype(_C128)
    raise ArgumentError(f"unsupported dtype {dt}; transgrad tensors are bool, int64, float32, "
                        "float64 or complex128")


def _np_dtype(dtype: Any) -> np.dtype:
    """A DType argument (a name, a numpy dtype or a transgrad dtype object) as a numpy dtype."""
    if type(dtype) is _dtypes.dtype:
        return dtype.dtype
    if isinstance(dtype, str) and dtype in _NAMES:
        return _NAMES[dtype]
    for attr in ("numpy_dtype", "np_dtype", "name"):
        inner = getattr(dtype, attr, None)
        if isinstance(inner, str) and inner in _NAMES:
            return _NAMES[inner]
        if isinstance(inner, np.dtype) and inner in _RANK:
            return inner
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = None
    if dt is None or dt not in _RANK:
        raise ArgumentError(f"unsupported dtype {dtype!r}; expected one of {', '.join(_NAMES)}")
    return dt


def _promote(*dts: np.dtype) -> np.dtype:
    """torch's promotion of tensor dtypes (Note [Type promotion] in transgrad/_dtypes.py)."""
    return functools.reduce(_dtypes._promote, map(_dtypes.of_numpy, dts)).dtype


def _is_half(dt: np.dtype) -> bool:
    """float16 or bfloat16: accumulating kernels compute them in float32 and round the result
    back, as the compiled engine and torch (Note [Storage dtypes] in csrc/tensor/tensor.h)."""
    return dt == _dtypes.float16 or dt == _dtypes.bfloat16


# Kernels whose result dtype is an argument: never rounded back.
_DTYPE_KERNELS = frozenset(("cast",))


def half_in_float32(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` computing float16/bfloat16 as torch and the compiled engine do (Note [Storage
    dtypes] in csrc/tensor/tensor.h): when its floating tensor arguments are all of one half
    dtype, they are widened to float32 (exact), and float32 results rounded back to that dtype.
    Other calls (no half argument, or half mixed with float32/64) run ``fn`` unchanged."""
    if name in _DTYPE_KERNELS:
        return fn
    tensor_class = _tensor_class()

    def widen(v: Any) -> Any:
        if isinstance(v, tensor_class) and _is_half(v._data.dtype):
            return tensor_class._from_array(v._data.astype(_F32))
        if isinstance(v, (list, tuple)):
            return type(v)(widen(e) for e in v)
        return v

    def narrow(v: Any, half: np.dtype) -> Any:
        if isinstance(v, tensor_class) and v._data.dtype == _F32:
            return tensor_class._from_array(v._data.astype(half))
        if isinstance(v, tuple):  # named tuples (values, indices) keep their type
            items = [narrow(e, half) for e in v]
            return type(v)(*items) if hasattr(v, "_fields") else tuple(items)
        return v

    def floats(v: Any) -> Any:
        if isinstance(v, tensor_class):
            d = v._data.dtype
            if _dtypes.is_floating(d):
                yield d
        elif isinstance(v, (list, tuple)):
            for e in v:
                yield from floats(e)

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        for v in args:  # the common case first: no 2-byte floating tensor among the arguments
            if isinstance(v, (list, tuple)) or (
                    isinstance(v, tensor_class) and v._data.dtype.itemsize == 2):
                break
        else:
            if not kwargs:
                return fn(*args)
        kinds = set(floats(args)) | set(floats(tuple(kwargs.values())))
        if len(kinds) != 1 or not _is_half(half := next(iter(kinds))):
            return fn(*args, **kwargs)
        out = fn(*widen(args), **{k: widen(v) for k, v in kwargs.items()})
        return narrow(out, half)

    return run


def _floating(a: np.ndarray) -> np.ndarray:
    """Floating kernels compute integer and bool inputs in the default dtype, as torch's
    (``sqrt(arange(4))`` is float32; Note [Integers in floating kernels] in
    translator/signatures.py)."""
    return a if _dtypes.is_floating_or_complex(a.dtype) else a.astype(_DEFAULT_DTYPE[0].dtype)


def _shape(a: np.ndarray) -> tuple[int, ...]:
    return tuple(int(s) for s in a.shape)


def _quiet(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)

    return run


# ---------------------------------------------------------------------------------------------
# Dims and shapes


def _wrap_dim(dim: int, ndim: int, name: str, extra: int = 0) -> int:
    """Wrap a possibly negative dim into [0, ndim + extra); a 0-d tensor accepts 0 and -1."""
    dim = operator.index(dim)
    n = max(ndim + extra, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim + n if dim < 0 else dim


def _wrap_dims(dims: Sequence[int], ndim: int, name: str) -> tuple[int, ...]:
    """Normalised reduction axes: distinct, wrapped; () for a 0-d tensor."""
    out = tuple(_wrap_dim(d, ndim, name) for d in dims)
    for i, d in enumerate(out):
        if d in out[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out if ndim > 0 else ()


def _check_shape(shape: Sequence[int], name: str) -> tuple[int, ...]:
    try:
        out = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise ArgumentError(f"{name}: shape must be a tuple of ints, got {shape!r}") from None
    return out


_INT64_MAX = 2**63 - 1


def _check_size(shape: Sequence[int], dtype: np.dtype) -> None:
    """As Tensor::empty and every view of the compiled engine (Note [Checked sizes] in
    csrc/tensor/tensor.cpp): a tensor's elements and bytes fit in int64, else torch's error."""
    n = 1
    for s in shape:
        n *= s
    if n * np.dtype(dtype).itemsize > _INT64_MAX:
        raise RuntimeError("Storage size calculation overflowed with sizes=[" +
                           ", ".join(str(s) for s in shape) + "]")


def _broadcast_shape(name: str, *arrays: np.ndarray) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*(a.shape for a in arrays)))
    except ValueError:
        pass
    out: tuple[int, ...] = ()
    for a in arrays:  # raises torch's words for the first pair that does not broadcast
        out = broadcast_pair(out, a.shape)
    raise AssertionError("numpy and broadcast_pair disagree")


def broadcast_pair(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """The broadcast of two shapes, checked from the last dim with torch's words
    (at::infer_size), as the compiled engine's ``broadcast_shapes``."""
    n = max(len(a), len(b))
    out = [0] * n
    for i in reversed(range(n)):
        sa = a[i - n + len(a)] if i >= n - len(a) else 1
        sb = b[i - n + len(b)] if i >= n - len(b) else 1
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b "
                               f"({sb}) at non-singleton dimension {i}")
        out[i] = sa if sb == 1 else sb
    return tuple(out)


def _number_like(x: np.ndarray, value: Any) -> np.ndarray:
    """``kernel.scalar_like(x, value)``'s array: the wrapped number's (Note [Type promotion] in
    transgrad/_dtypes.py)."""
    d = _dtypes.scalar_dtype(value, _dtypes.of_array(x), _DEFAULT_DTYPE[0])
    return np.array(value, dtype=d.dtype)


def _tier(t: Any, a: np.ndarray) -> int:
    """The promotion tier of a kernel operand: 0 dims, 1 0-d, 2 a wrapped number."""
    return 2 if getattr(t, "_wrapped", False) else (0 if a.ndim else 1)


def _operands(a: Any, b: Any, name: str, opmath: bool = False,
              to_float: bool = False) -> tuple[np.ndarray, np.ndarray, np.dtype]:
    """Both operands of an elementwise binary kernel cast to the result dtype (Note [Type
    promotion] in transgrad/_dtypes.py; with ``to_float``, the default dtype when that is not
    floating), and that dtype. With ``opmath`` and a float16/bfloat16
    result, both in float32 instead, a 0-d floating operand unrounded (the caller rounds its
    result back): as the compiled kernels' storage_operand (csrc/kernels/loops.h)."""
    # a Python number beside a tensor is kernel.scalar_like(tensor, number): translator
    # Note [Numbers as kernel operands]. Exactly bool/int/float: a numpy scalar (np.float64 is a
    # float subclass) stays a 0-d array, as the compiled kernels' bindings take it.
    number = (bool, int, float)
    if type(b) in number and type(a) not in number:
        x = _arr(a)
        y = _number_like(x, b)
        ta, tb = _tier(a, x), 2
    elif type(a) in number and type(b) not in number:
        y = _arr(b)
        x = _number_like(y, a)
        ta, tb = 2, _tier(b, y)
    else:
        x, y = _arr(a), _arr(b)
        ta, tb = _tier(a, x), _tier(b, y)
    _broadcast_shape(name, x, y)
    if x.dtype == y.dtype:
        dt = x.dtype
    else:
        dt = _dtypes.binary_result_type(_dtypes.of_array(x), ta, _dtypes.of_array(y), tb).dtype
    if to_float and not _dtypes.is_floating_or_complex(_dtypes.of_numpy(dt)):
        dt = _DEFAULT_DTYPE[0].dtype
    if opmath and _is_half(dt):
        return _opmath_operand(x, dt), _opmath_operand(y, dt), dt
    return x.astype(dt, copy=False), y.astype(dt, copy=False), dt


def _opmath_operand(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    if x.ndim == 0 and _dtypes.is_floating(_dtypes.of_array(x)):
        return x.astype(_F32)
    return x.astype(dt, copy=False).astype(_F32)
