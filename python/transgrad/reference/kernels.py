"""The reference engine's raw kernels: numpy implementations of translator/signatures.py.

Input: reference Tensors (and plain Python values); output: fresh reference Tensors. One function
per declared kernel, same names and parameter names (tests/kernels/test_reference_kernels.py
checks it). They follow Note [Kernel conventions] (signatures.py) exactly; the reference-specific
choices are in Note [Reference kernels]. Only ``_arr``, ``_new`` and ``_view`` know the Tensor
class; everything else is numpy.

Note [Reference kernels]
~~~~~~~~~~~~~~~~~~~~~~~~
* Dtypes: binary kernels promote as torch's result_type and never by numpy's rules (numpy makes
  float32 + int64 float64): Note [Type promotion] in transgrad/_dtypes.py, with the tier of each
  operand (dims, 0-d, or a wrapped number: ``Tensor._wrapped``, or a Python number argument).
* Floating unary kernels (exp, log, ..., pow_scalar, logsumexp, softmax, log_softmax) compute
  integer/bool inputs in the default dtype (Note [Integers in floating kernels] in
  translator/signatures.py); abs, neg, sign, relu and clamp keep int64 (bool counts as int64
  there, except neg, which rejects bool). div of two integer tensors is true division, in the
  default dtype (``kernel_support.set_default_dtype``).
  sum and sum_to of bool/int64 give int64. A float32 input always gives a float32 output.
* Dims may be negative; a 0-d tensor accepts dim 0 or -1 (as PyTorch). Out-of-range dims and
  indices raise IndexError; bad shapes, dtypes and arguments raise ArgumentError, a
  RuntimeError and a ValueError, as the C++ kernels' tg::ValueError (Note [Error classes] in
  _errors.py). Messages start with the kernel name and quote the shapes involved.
* View kernels (reshape when numpy can, expand, permute, transpose, unsqueeze, squeeze, slice,
  select, and contiguous on a contiguous input) return tensors that share their input's storage
  and version counter. expand's view is read-only (its elements alias each other).
* Scatter-like kernels (index_add, scatter_add, slice_scatter, select_scatter) return a new tensor
  of ``x``'s dtype; ``source`` is cast to it.
* Floating-point warnings (log of a negative, 0/0) are silenced: the result is nan/inf as in C.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any, Optional

import numpy as np

try:  # scipy's erf is vectorised; math.erf is the exact fallback
    from scipy.special import erf as _np_erf
except ImportError:  # pragma: no cover - depends on the environment
    _np_erf = np.frompyfunc(math.erf, 1, 1)

from transgrad import _dtypes
from transgrad._errors import ArgumentError
from transgrad.reference.kernel_support import (  # noqa: F401 - shared with kernels_nn/_special
    _BOOL,
    _C128,
    _DEFAULT_DTYPE,
    _F32,
    _F64,
    _INT,
    _INT64_MAX,
    _NAMES,
    _RANK,
    _arr,
    _broadcast_shape,
    _canonical,
    _check_shape,
    _check_size,
    _floating,
    _is_half,
    _new,
    _np_dtype,
    _number_like,
    _operands,
    _promote,
    _quiet,
    _shape,
    _tensor_class,
    _view,
    _wrap_dim,
    _wrap_dims,
    broadcast_pair,
)

# ---------------------------------------------------------------------------------------------
# Elementwise unary


def _unary_float(np_fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[Any], Any]:
    @_quiet
    def kernel(x: Any) -> Any:
        a = _floating(_arr(x))
        return _new(np.asarray(np_fn(a)).astype(a.dtype, copy=False))

    return kernel


def _int_keeping(a: np.ndarray, name: str) -> np.ndarray:
    if a.dtype == _C128:
        raise ArgumentError(f"{name}: complex tensors are not supported")
    return a.astype(_INT) if a.dtype == _BOOL else a


exp = _unary_float(np.exp)
log = _unary_float(np.log)
log1p = _unary_float(np.log1p)
expm1 = _unary_float(np.expm1)
sqrt = _unary_float(np.sqrt)
rsqrt = _unary_float(lambda a: 1 / np.sqrt(a))
reciprocal = _unary_float(lambda a: 1 / a)
sin = _unary_float(np.sin)
cos = _unary_float(np.cos)
tan = _unary_float(np.tan)
tanh = _unary_float(np.tanh)
erf = _unary_float(lambda a: np.asarray(_np_erf(a), dtype=a.dtype))


def _stable_sigmoid(a: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(a))  # in (0, 1]: never overflows
    return np.where(a >= 0, 1 / (1 + e), e / (1 + e))


sigmoid = _unary_float(_stable_sigmoid)
for _k, _n in ((exp, "exp"), (log, "log"), (log1p, "log1p"), (expm1, "expm1"), (sqrt, "sqrt"),
               (rsqrt, "rsqrt"), (reciprocal, "reciprocal"), (sin, "sin"), (cos, "cos"),
               (tan, "tan"), (tanh, "tanh"), (erf, "erf"), (sigmoid, "sigmoid")):
    _k.__name__ = _k.__qualname__ = _n


def neg(x: Any) -> Any:
    a = _arr(x)
    if a.dtype == _BOOL:
        raise ArgumentError("Negation, the `-` operator, on a bool tensor is not supported. If "
                            "you are trying to invert a mask, use the `~` or `logical_not()` "
                            "operator instead.")
    return _new(np.negative(a))


@_quiet
def relu(x: Any) -> Any:
    a = _int_keeping(_arr(x), "relu")
    return _new(np.maximum(a, np.zeros((), a.dtype)))  # nan stays nan


def abs(x: Any) -> Any:
    return _new(np.abs(_int_keeping(_arr(x), "abs")))


@_quiet
def sign(x: Any) -> Any:
    return _new(np.sign(_int_keeping(_arr(x), "sign")))


@_quiet
def pow_scalar(x: Any, exponent: float) -> Any:
    a = _floating(_arr(x))
    return _new(np.power(a, float(exponent)).astype(a.dtype, copy=False))


@_quiet
def clamp(x: Any, min: float | None, max: float | None) -> Any:
    a = _int_keeping(_arr(x), "clamp")
    if a.dtype == _INT:  # int64 stays int64: round the bounds inwards
        min = None if min is None else math.ceil(min)
        max = None if max is None else math.floor(max)
    out = a.copy()  # maximum/minimum propagate nan; min > max gives max everywhere (as PyTorch)
    if min is not None:
        out = np.maximum(out, np.asarray(min, a.dtype))
    if max is not None:
        out = np.minimum(out, np.asarray(max, a.dtype))
    return _new(out)


def _float_to_int(a: np.ndarray, d: np.dtype) -> np.ndarray:
    """``a`` (floating) truncated into the integer dtype ``d`` as torch's casts, defined for
    NaN and out of range (Note [Float to integer casts] in csrc/tensor/dispatch.h: through int32
    for int8/int16/int32, through int64 for uint8 and int64; the wide type's minimum where the
    value does not fit)."""
    wide = np.dtype(np.int32) if d.kind == "i" and d.itemsize <= 4 else np.dtype(np.int64)
    limit = 2.0 ** (8 * wide.itemsize - 1)
    v = a.astype(np.float64)  # exact for every floating dtype
    fits = (v >= -limit) & (v < limit)  # NaN never fits
    out = np.where(fits, v, 0.0).astype(wide)  # astype truncates toward zero
    out[~fits] = np.iinfo(wide).min
    return out.astype(d)  # integer to narrower integer wraps


@_quiet
def cast(x: Any, dtype: Any) -> Any:
    a, d = _arr(x), _np_dtype(dtype)
    if _is_half(d) and a.dtype == _F64:  # through float32, as torch (Note [Half conversions])
        a = a.astype(_F32)
    if d.kind in "iu" and a.dtype.kind not in "biu":
        return _new(_float_to_int(a, d))
    return _new(np.array(a, dtype=d, copy=True))


# ---------------------------------------------------------------------------------------------
# Elementwise binary (broadcasting, promotion)


def _binary(np_fn: Callable[[np.ndarray, np.ndarray], np.ndarray], name: str,
            no_bool: bool = False, opmath: bool = False) -> Callable[[Any, Any], Any]:
    @_quiet
    def kernel(a: Any, b: Any) -> Any:
        if no_bool:
            _no_bool_sub(a, b)
        x, y, dt = _operands(a, b, name, opmath)
        out = np.asarray(np_fn(x, y))
        if out.dtype != dt and out.dtype != _BOOL:
            out = out.astype(dt)
        return _new(out)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _no_bool_sub(a: Any, b: Any) -> None:
    """torch's refusal of a bool operand of sub, in its words (a Python bool counts)."""
    bools = [(type(v) is bool) or (type(v) not in (int, float) and _arr(v).dtype == _BOOL)
             for v in (a, b)]
    if all(bools):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if any(bools):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


add = _binary(lambda x, y: np.logical_or(x, y) if x.dtype == _BOOL else x + y, "add", opmath=True)
sub = _binary(np.subtract, "sub", no_bool=True)
mul = _binary(lambda x, y: np.logical_and(x, y) if x.dtype == _BOOL else x * y, "mul",
              opmath=True)
maximum = _binary(np.maximum, "maximum")
minimum = _binary(np.minimum, "minimum")
eq = _binary(np.equal, "eq")
ne = _binary(np.not_equal, "ne")
lt = _binary(np.less, "lt")
le = _binary(np.less_equal, "le")
gt = _binary(np.greater, "gt")
ge = _binary(np.greater_equal, "ge")


@_quiet
def div(a: Any, b: Any) -> Any:
    x, y, dt = _operands(a, b, "div", opmath=True, to_float=True)  # true division
    return _new(np.true_divide(x, y).astype(dt, copy=False))


@_quiet
def pow(a: Any, b: Any) -> Any:
    x, y, dt = _operands(a, b, "pow")
    if dt == _BOOL:
        raise RuntimeError("\"pow\" not implemented for 'Bool'")  # as torch
    if x.dtype.kind in "iu" and np.any(y < 0):
        # C's integer pow, as torch's (and ipow in binary.cpp): 1 and -1 keep their powers,
        # every other base gives 0 for a negative exponent
        x, y = np.broadcast_arrays(x, y)
        out = np.power(x, np.maximum(y, 0))
        neg = np.where(x == 1, 1, np.where(x == -1, np.where(y % 2 != 0, -1, 1), 0))
        return _new(np.where(y < 0, neg, out).astype(x.dtype, copy=False))
    return _new(np.power(x, y).astype(x.dtype, copy=False))


def logical_not(x: Any) -> Any:
    return _new(np.logical_not(_arr(x)))


def where(cond: Any, a: Any, b: Any) -> Any:
    c = _arr(cond)
    if c.dtype != _BOOL:
        raise ArgumentError(f"where: the condition must be a bool tensor, got {c.dtype}")
    x, y, _ = _operands(a, b, "where")
    _broadcast_shape("where", c, x, y)
    return _new(np.where(c, x, y))


# ---------------------------------------------------------------------------------------------
# Creation


def full(shape: Sequence[int], value: float, dtype: Any) -> Any:
    shape = _check_shape(shape, "full")
    if any(s < 0 for s in shape):
        raise ArgumentError(f"full: negative size in shape {shape}")
    _check_size(shape, _np_dtype(dtype))
    return _new(np.full(shape, value, dtype=_np_dtype(dtype)))


def zeros_like(x: Any) -> Any:
    return _new(np.zeros(_arr(x).shape, _arr(x).dtype))


def ones_like(x: Any) -> Any:
    return _new(np.ones(_arr(x).shape, _arr(x).dtype))


def scalar_like(x: Any, value: float) -> Any:
    """A 0-d tensor of ``x``'s dtype when ``x`` is floating; else int64 for an int ``value``
    (or bool), float64 for a float one (docs/ARCHITECTURE.md, operators and scalars)."""
    return _new(_number_like(_arr(x), value))


# ---------------------------------------------------------------------------------------------
# Reductions


def _sum_dtype(a: np.ndarray) -> np.dtype:
    """Integers and bool sum in int64 (as torch); float16/bfloat16 accumulate in float32."""
    if a.dtype == _BOOL or _dtypes.is_integral(a.dtype):
        return _INT
    return _F32 if _is_half(a.dtype) else a.dtype


def sum(x: Any, dims: Optional[Sequence[int]] = None, keepdim: bool = False) -> Any:
    a = _arr(x)
    dims = range(a.ndim) if dims is None else dims  # Note [Kernel defaults] (signatures.py)
    axes = _wrap_dims(dims, a.ndim, "sum")
    out = np.sum(a, axis=axes, keepdims=bool(keepdim), dtype=_sum_dtype(a))
    return _new(out.astype(a.dtype) if _is_half(a.dtype) else out)


def _extremum(np_fn: Callable[..., np.ndarray], name: str) -> Callable[..., Any]:
    @_quiet
    def kernel(x: Any, dims: Optional[Sequence[int]] = None, keepdim: bool = False) -> Any:
        a = _arr(x)
        dims = range(a.ndim) if dims is None else dims  # Note [Kernel defaults]
        axes = _wrap_dims(dims, a.ndim, name)
        for d in axes:  # an extremum of nothing does not exist: torch's words
            if a.shape[d] == 0:
                if len(axes) == a.ndim:
                    raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                                       "input.numel() == 0. Specify the reduction dim with the "
                                       "'dim' argument.")
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return _new(np_fn(a, axis=axes, keepdims=bool(keepdim)))

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


amax = _extremum(np.amax, "amax")
amin = _extremum(np.amin, "amin")


def _arg_extremum(np_arg: Callable[..., np.ndarray], name: str) -> Callable[..., Any]:
    @_quiet
    def kernel(x: Any, dim: int, keepdim: bool) -> tuple[Any, Any]:
        a = _arr(x)
        d = _wrap_dim(dim, a.ndim, name)
        if a.ndim == 0:
            return _new(a.copy()), _new(np.zeros((), _INT))
        if a.shape[d] == 0:  # torch's words, under torch's name (max, not max_dim)
            raise IndexError(f"{name[:3]}(): Expected reduction dim {d} to have non-zero size.")
        idx = np.expand_dims(np_arg(a, axis=d), d)
        values = np.take_along_axis(a, idx, axis=d)
        if not keepdim:
            values, idx = np.squeeze(values, axis=d), np.squeeze(idx, axis=d)
        return _new(values.copy()), _new(idx.astype(_INT))

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


max_dim = _arg_extremum(np.argmax, "max_dim")  # ties and nan: the first index, as PyTorch
min_dim = _arg_extremum(np.argmin, "min_dim")


def _shifted(a: np.ndarray, axes: tuple[int, ...],
             finite: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(a - m, m) with m the max over ``axes`` (kept); with ``finite`` (logsumexp), replaced by
    0 where it is not finite (Note [Shift of softmax and logsumexp] in csrc/kernels/reduce.cpp:
    softmax subtracts an infinite max as it is, so such a row is NaN, as torch's)."""
    m = np.amax(a, axis=axes, keepdims=True, initial=-np.inf) if a.size else \
        np.zeros(tuple(1 if i in axes else s for i, s in enumerate(a.shape)), a.dtype)
    if finite:
        m = np.where(np.isfinite(m), m, 0)
    m = m.astype(a.dtype, copy=False)
    return a - m, m


@_quiet
def logsumexp(x: Any, dims: Sequence[int], keepdim: bool) -> Any:
    a = _floating(_arr(x))
    axes = _wrap_dims(dims, a.ndim, "logsumexp")
    z, m = _shifted(a, axes)
    out = np.log(np.sum(np.exp(z), axis=axes, keepdims=True)) + m
    if not keepdim:
        out = np.squeeze(out, axis=axes)
    return _new(out.astype(a.dtype, copy=False))


@_quiet
def softmax(x: Any, dim: int) -> Any:
    a = _floating(_arr(x))
    axes = _wrap_dims((dim,), a.ndim, "softmax")
    e = np.exp(_shifted(a, axes, finite=False)[0])
    return _new((e / np.sum(e, axis=axes, keepdims=True)).astype(a.dtype, copy=False))


def attention_softmax(scores: Any, scale: float, mask: Optional[Any]) -> Any:
    """``softmax(scores * scale + mask, -1)`` (Note [attention_softmax in one pass] in
    csrc/kernels/reduce.cpp)."""
    scaled = mul(scores, scalar_like(scores, scale))
    return softmax(scaled if mask is None else add(scaled, mask), -1)


@_quiet
def log_softmax(x: Any, dim: int) -> Any:
    a = _floating(_arr(x))
    axes = _wrap_dims((dim,), a.ndim, "log_softmax")
    z = _shifted(a, axes, finite=False)[0]
    out = z - np.log(np.sum(np.exp(z), axis=axes, keepdims=True))
    return _new(out.astype(a.dtype, copy=False))


def sum_to(x: Any, shape: Sequence[int]) -> Any:
    a = _arr(x)
    shape = _check_shape(shape, "sum_to")
    lead = a.ndim - len(shape)
    ok = lead >= 0 and all(t == s or t == 1 for s, t in zip(a.shape[lead:], shape))
    if not ok:
        raise ArgumentError(f"sum_to: cannot sum shape {_shape(a)} down to {shape} (the target "
                            "must be broadcastable to the input's shape)")
    axes = tuple(range(lead)) + tuple(lead + i for i, t in enumerate(shape)
                                      if t == 1 and a.shape[lead + i] != 1)
    out = np.sum(a, axis=axes, keepdims=True, dtype=_sum_dtype(a)) if axes else a.copy()
    return _new(out.reshape(shape))


# ---------------------------------------------------------------------------------------------
# Shape and views


def reshape(x: Any, shape: Sequence[int]) -> Any:
    a = _arr(x)
    shape = _check_shape(shape, "reshape")
    given = list(shape)  # torch's messages print the sizes asked for
    free = [i for i, s in enumerate(shape) if s == -1]
    if len(free) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for i, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {given}")
    known = math.prod(s for s in shape if s != -1)
    if free and known == 0 and a.size == 0:
        raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {given} because the "
                           "unspecified dimension size -1 can be any value and is ambiguous")
    if free and known != 0 and a.size % known == 0:
        shape = shape[:free[0]] + (a.size // known,) + shape[free[0] + 1:]
    if -1 in shape or math.prod(shape) != a.size:
        raise RuntimeError(f"shape '{given}' is invalid for input of size {a.size}")
    out = a.reshape(shape)
    return _view(out, x) if np.may_share_memory(out, a) else _new(out.copy())


def expand(x: Any, shape: Sequence[int]) -> Any:
    a = _arr(x)
    shape = _check_shape(shape, "expand")
    lead = len(shape) - a.ndim
    target = list(shape)
    if lead < 0:
        raise RuntimeError(f"expand: the number of sizes provided ({len(shape)}) must be greater "
                           f"or equal to the number of dimensions in the tensor ({a.ndim})")
    for i, s in enumerate(shape[:lead]):
        if s < 0:
            raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                               f"leading, non-existing dimension {i}")
    for i in range(lead, len(shape)):
        have = a.shape[i - lead]
        if target[i] == -1:
            target[i] = have
        if not (target[i] == have or have == 1) or target[i] < 0:
            raise RuntimeError(f"The expanded size of the tensor ({shape[i]}) must match the "
                               f"existing size ({have}) at non-singleton dimension {i}.  "
                               f"Target sizes: {list(shape)}.  Tensor sizes: {list(a.shape)}")
    _check_size(target, a.dtype)
    # broadcast_to's strides on a view that is writable when the input is (torch lets a
    # backward write one element of an expanded gradient: ``g.expand(n)[0] = 0``); a write of
    # the whole view, whose elements share memory, is refused by inplace_ as torch refuses it
    b = np.broadcast_to(a, tuple(target))
    return _view(np.lib.stride_tricks.as_strided(a, b.shape, b.strides,
                                                 writeable=bool(a.flags.writeable)), x)


def permute(x: Any, dims: Sequence[int]) -> Any:
    a = _arr(x)
    wrapped = tuple(_wrap_dim(d, a.ndim, "permute") for d in dims)
    if sorted(wrapped) != list(range(a.ndim)):
        raise ArgumentError(f"permute: dims {tuple(dims)} are not a permutation of the "
                            f"{a.ndim} dimensions of a tensor of shape {_shape(a)}")
    return _view(np.transpose(a, wrapped), x)


def transpose(x: Any, dim0: int, dim1: int) -> Any:
    a = _arr(x)
    d0, d1 = _wrap_dim(dim0, a.ndim, "transpose"), _wrap_dim(dim1, a.ndim, "transpose")
    return _view(a[...] if a.ndim == 0 else np.swapaxes(a, d0, d1), x)


def unsqueeze(x: Any, dim: int) -> Any:
    a = _arr(x)
    return _view(np.expand_dims(a, _wrap_dim(dim, a.ndim, "unsqueeze", extra=1)), x)


def squeeze(x: Any, dims: Sequence[int]) -> Any:
    """Remove the given dims that have size 1; other dims are left alone (as PyTorch)."""
    a = _arr(x)
    axes = tuple(d for d in _wrap_dims(dims, a.ndim, "squeeze") if a.shape[d] == 1)
    return _view(np.squeeze(a, axis=axes), x)


def _slice_index(a: np.ndarray, dim: int, start: int | None, stop: int | None, step: int,
                 name: str) -> tuple[Any, ...]:
    if a.ndim == 0:
        raise IndexError(f"{name}: cannot slice a 0-d tensor")
    d = _wrap_dim(dim, a.ndim, name)
    if step <= 0:
        raise ArgumentError(f"{name}: step must be positive, got {step}")
    return (np.s_[:],) * d + (builtins.slice(start, stop, step),)


def _select_index(a: np.ndarray, dim: int, index: int, name: str) -> tuple[int, int]:
    if a.ndim == 0:
        raise IndexError(f"{name}: cannot select from a 0-d tensor")
    d = _wrap_dim(dim, a.ndim, name)
    n = a.shape[d]
    if not -n <= index < n:
        raise IndexError(f"{name}: index {index} is out of range for dimension {dim} of size "
                         f"{n} (shape {_shape(a)})")
    return d, index + n if index < 0 else index


def slice(x: Any, dim: int, start: int | None, stop: int | None, step: int) -> Any:
    a = _arr(x)
    return _view(a[_slice_index(a, dim, start, stop, step, "slice")], x)


def select(x: Any, dim: int, index: int) -> Any:
    a = _arr(x)
    d, i = _select_index(a, dim, index, "select")
    part = a[(np.s_[:],) * d + (np.s_[i:i + 1],)]
    return _view(np.squeeze(part, axis=d), x)


def contiguous(x: Any) -> Any:
    a = _arr(x)
    return _view(a, x) if a.flags.c_contiguous else _new(np.asarray(a, order="C"))


def clone(x: Any) -> Any:
    return _new(_arr(x).copy())


def _same_dtype(arrays: Sequence[np.ndarray]) -> list:
    dt = _promote(*(a.dtype for a in arrays))
    return [a.astype(dt, copy=False) for a in arrays]


def cat(tensors: Sequence[Any], dim: int) -> Any:
    arrays = [_arr(t) for t in tensors]
    if not arrays:
        raise ArgumentError("cat: expected a non-empty sequence of tensors")
    for k, a in enumerate(arrays):
        if a.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {k}) cannot be "
                               "concatenated")
    d = _wrap_dim(dim, arrays[0].ndim, "cat")
    first = arrays[0].shape
    for k, a in enumerate(arrays):  # torch's words
        if a.ndim != len(first):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(first)} "
                               f"and {a.ndim}")
        for i in range(a.ndim):
            if i != d and a.shape[i] != first[i]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {first[i]} but got size {a.shape[i]} for "
                                   f"tensor number {k} in the list.")
    return _new(np.concatenate(_same_dtype(arrays), axis=d))


def stack(tensors: Sequence[Any], dim: int) -> Any:
    arrays = [_arr(t) for t in tensors]
    if not arrays:
        raise RuntimeError("stack expects a non-empty TensorList")
    for k, a in enumerate(arrays):
        if a.shape != arrays[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(arrays[0].shape)} at entry 0 and {list(a.shape)} at "
                               f"entry {k}")
    d = _wrap_dim(dim, arrays[0].ndim, "stack", extra=1)
    return _new(np.stack(_same_dtype(arrays), axis=d))


# ---------------------------------------------------------------------------------------------
# Indexing


def _index(index: Any, size: int, dim: int, name: str) -> np.ndarray:
    """An int64 index array in [0, size): negative entries are out of range, as torch's
    index_select, index_add, gather and scatter_add (only Python indexing wraps, in
    ``index``/``index_put``); out of range raises IndexError with
    torch's words (as csrc/kernels/index.cpp)."""
    idx = _arr(index)
    if idx.dtype != _INT:
        raise ArgumentError(f"{name}: index must be an int64 tensor, got {idx.dtype}")
    bad = (idx < 0) | (idx >= size)
    if np.any(bad):
        raise IndexError(f"index {int(idx[bad].flat[0])} is out of bounds for dimension {dim} "
                         f"with size {size} ({name})")
    return idx


def _vector_index(x: np.ndarray, dim: int, index: Any, name: str) -> tuple[int, np.ndarray]:
    if x.ndim == 0:
        raise ArgumentError(f"{name}: expected a tensor with at least one dimension")
    d = _wrap_dim(dim, x.ndim, name)
    idx = _index(index, x.shape[d], dim, name)
    if idx.ndim > 1:
        raise ArgumentError(f"{name}: index must be 0-d or 1-D, got shape {_shape(idx)}")
    return d, idx.reshape(-1)


def index_select(x: Any, dim: int, index: Any) -> Any:
    a = _arr(x)
    d, idx = _vector_index(a, dim, index, "index_select")
    return _new(np.take(a, idx, axis=d))


def index_add(x: Any, dim: int, index: Any, source: Any) -> Any:
    a, src = _arr(x), _arr(source)
    d, idx = _vector_index(a, dim, index, "index_add")
    want = a.shape[:d] + (len(idx),) + a.shape[d + 1:]
    if src.shape != want:
        raise ArgumentError("source tensor shape must match self tensor shape, excluding the "
                            f"specified dimension. Got self.shape = {list(a.shape)} source.shape "
                            f"= {list(src.shape)} (index_add: {len(idx)} indices along dim {d} "
                            f"want a source of shape {want})")
    out = a.copy()
    where: tuple[Any, ...] = (np.s_[:],) * d + (idx,)  # slices and an index array
    np.add.at(out, where, src.astype(a.dtype, copy=False))
    return _new(out)


def _grid_index(x: np.ndarray, dim: int, index: Any, name: str, others: Sequence[np.ndarray]
                ) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """Index arrays for gather/scatter: index[i, j, k] names x[i, index[i, j, k], k] (dim=1)."""
    idx_arr = _arr(index)
    nd = max(x.ndim, 1)  # as torch: a 0-d tensor counts as 1-D here
    if max(idx_arr.ndim, 1) != nd or any(max(o.ndim, 1) != nd for o in others):
        shapes = ", ".join(str(_shape(t)) for t in (x, idx_arr) + tuple(others))
        which = ("input" if name == "gather" else "self") if max(idx_arr.ndim, 1) != nd \
            else "src"
        raise ArgumentError(f"Index tensor must have the same number of dimensions as {which} "
                            f"tensor ({name}: shapes {shapes})")
    d = _wrap_dim(dim, x.ndim, name)
    xs = x.reshape(x.shape or (1,))
    ishape = idx_arr.shape or (1,)
    for i in range(nd):
        if (i != d and ishape[i] > xs.shape[i]) or any(ishape[i] > o.reshape(
                o.shape or (1,)).shape[i] for o in others):
            # torch's words (gather's per dim, scatter's for the whole shapes), then the name
            if not others:
                raise ArgumentError(f"Size does not match at dimension {i} expected index "
                                    f"{list(ishape)} to be no larger than self "
                                    f"{list(xs.shape)} apart from dimension {d} ({name})")
            raise ArgumentError(f"Expected index {list(ishape)} to be no larger than self "
                                f"{list(xs.shape)} apart from dimension {d} and to be no "
                                f"larger size than src {list(others[0].shape or (1,))} "
                                f"({name})")
    idx = _index(idx_arr.reshape(ishape), xs.shape[d], d, name)
    grids: list[np.ndarray] = list(np.indices(ishape, sparse=True))
    grids[d] = idx
    return xs, tuple(grids)


def _adv_key(x: np.ndarray, dims: Sequence[int], indices: Sequence[Any], name: str
             ) -> tuple[Any, ...]:
    """numpy's index tuple for ``index``/``index_put`` (Note [Advanced indexing kernels] in
    csrc/kernels/index.cpp): full slices and the wrapped index arrays on ``dims``."""
    arrays = [_arr(t) for t in indices]
    if not arrays or len(arrays) != len(dims):
        raise ArgumentError(f"{name}: expected one index tensor per indexed dim, got "
                            f"{len(arrays)} index tensors for {len(dims)} dims")
    if len(arrays) > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    ds = [_wrap_dim(d, x.ndim, name) for d in dims]
    if any(b <= a for a, b in zip(ds, ds[1:])):
        raise ArgumentError(f"{name}: indexed dims must be increasing, got {tuple(dims)}")
    for a in arrays:
        if a.dtype != _INT:
            raise ArgumentError(f"{name}: index must be an int64 tensor, got {a.dtype}")
    try:
        shape = arrays[0].shape if len(arrays) == 1 else np.broadcast_shapes(
            *(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(str(_shape(a)) for a in arrays)
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together "
                         f"with shapes {shapes} ({name} on a tensor of shape {_shape(x)})"
                         ) from None
    key: list[Any] = [np.s_[:]] * x.ndim
    empty = math.prod(shape) == 0 or any(
        x.shape[d] == 0 for d in range(x.ndim) if d not in ds)
    for j, (d, a) in enumerate(zip(ds, arrays)):
        size = x.shape[d]
        # an expanded index (stride 0) is read once per distinct element, never 2**40 times
        core = a[tuple(builtins.slice(0, 1) if st == 0 else np.s_[:] for st in a.strides)]
        lo, hi = (int(core.min()), int(core.max())) if a.size else (0, 0)
        if (lo < -size or hi >= size) and not empty:
            bad = (core < -size) | (core >= size)
            raise IndexError(f"index {int(core[bad].flat[0])} is out of bounds for dimension {j} "
                             f"with size {size} ({name} on a tensor of shape {_shape(x)}, dim "
                             f"{d})")
        if lo < -size or hi >= size:  # an empty result reads nothing (as the C++ kernel)
            key[d] = np.zeros_like(a)
        else:
            key[d] = a if lo >= 0 else np.where(a < 0, a + size, a)
    return tuple(key)


def index(x: Any, dims: Sequence[int], indices: Sequence[Any]) -> Any:
    a = _arr(x)
    return _new(np.asarray(a[_adv_key(a, dims, indices, "index")], order="C"))


def index_put(x: Any, dims: Sequence[int], indices: Sequence[Any], values: Any,
              accumulate: bool) -> Any:
    a, v = _arr(x), _arr(values)
    key = _adv_key(a, dims, indices, "index_put")
    out = a.copy()
    want = out[key].shape
    if v.shape != want:
        raise ArgumentError(f"index_put: values of shape {_shape(v)} do not match the indexing "
                            f"result's shape {want} (x of shape {_shape(a)})")
    if accumulate:
        np.add.at(out, key, v.astype(a.dtype, copy=False))
    else:
        out[key] = v.astype(a.dtype, copy=False)
    return _new(out)


def gather(x: Any, dim: int, index: Any) -> Any:
    a = _arr(x)
    xs, grid = _grid_index(a, dim, index, "gather", ())
    return _new(xs[grid].reshape(_arr(index).shape))


def scatter_add(x: Any, dim: int, index: Any, source: Any) -> Any:
    a, src = _arr(x), _arr(source)
    xs, grid = _grid_index(a, dim, index, "scatter_add", (src,))
    out = xs.copy()
    ishape = _arr(index).shape or (1,)
    part = src.reshape(src.shape or (1,))[tuple(np.s_[:n] for n in ishape)]
    np.add.at(out, grid, part.astype(a.dtype, copy=False))
    return _new(out.reshape(a.shape))


def slice_scatter(x: Any, source: Any, dim: int, start: int | None, stop: int | None,
                  step: int) -> Any:
    a, src = _arr(x), _arr(source)
    out = a.copy()
    where_ = _slice_index(a, dim, start, stop, step, "slice_scatter")
    if out[where_].shape != src.shape:
        raise ArgumentError(f"slice_scatter: source has shape {_shape(src)} but the slice of x "
                            f"{_shape(a)} has shape {_shape(out[where_])}")
    out[where_] = src
    return _new(out)


def select_scatter(x: Any, source: Any, dim: int, index: int) -> Any:
    a, src = _arr(x), _arr(source)
    d, i = _select_index(a, dim, index, "select_scatter")
    want = a.shape[:d] + a.shape[d + 1:]
    if src.shape != want:
        raise ArgumentError(f"select_scatter: source has shape {_shape(src)}, expected {want} "
                            f"(x {_shape(a)} without dimension {dim})")
    out = a.copy()
    out[(np.s_[:],) * d + (i,)] = src
    return _new(out)


# ---------------------------------------------------------------------------------------------
# Linear algebra


def matmul(a: Any, b: Any) -> Any:
    x, y = _arr(a), _arr(b)
    if x.ndim < 2 or y.ndim < 2:
        raise ArgumentError(f"matmul: expected operands with at least 2 dimensions, got shapes "
                            f"{_shape(x)} and {_shape(y)} (ops.matmul handles 1-D operands)")
    k, k2 = x.shape[-1], y.shape[-2]
    if k != k2:  # torch's words: mm's when y is a matrix (x's batch folds into rows), else bmm's
        if y.ndim == 2:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                               f"({x.size // k if k else 0}x{k} and {k2}x{y.shape[-1]})")
        nb = math.prod(broadcast_pair(x.shape[:-2], y.shape[:-2]))
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{nb}, {k}] but got: [{nb}, {k2}].")
    broadcast_pair(x.shape[:-2], y.shape[:-2])
    dt = _promote(x.dtype, y.dtype)
    ct = _F32 if _is_half(dt) else dt  # float16/bfloat16 through float32, rounded back
    return _new(np.matmul(x.astype(ct, copy=False), y.astype(ct, copy=False)).astype(dt))


def linear_gemm(x: Any, weight: Any, bias: Optional[Any]) -> Any:
    """``x @ weight^T + bias``: matmul and add (the compiled kernel's one gemm computes the same;
    Note [linear's bias in the gemm] in csrc/kernels/linalg.cpp)."""
    product = matmul(x, transpose(weight, 0, 1))
    return product if bias is None else add(product, bias)


# ---------------------------------------------------------------------------------------------
# Reading data


def item(x: Any) -> float:
    a = _arr(x)
    if a.size != 1:
        raise ArgumentError(f"item: only a tensor with one element can be converted to a Python "
                            f"number, got shape {_shape(a)}")
    return float(a.reshape(-1)[0])


# ---------------------------------------------------------------------------------------------
# Neural-network kernels (conv, pooling, misc): the last section of signatures.py, in their own
# module to keep this one small.

from transgrad.reference.kernels_nn import (  # noqa: E402, F401 - re-exported kernels, last
    adaptive_pool_weights,
    batch_norm_backward,
    batch_norm_stats,
    channel_affine,
    col2im,
    cumsum,
    flip,
    im2col,
    max_pool2d,
    pad,
    sort,
    topk,
    tril,
    triu,
)
from transgrad.reference.kernels_rnn import (  # noqa: E402, F401 - re-exported kernels
    gru_cell,
    gru_cell_backward,
    lstm_cell,
    lstm_cell_backward,
    lstm_layer,
    lstm_layer_bptt,
    lstm_layer_weight_grads,
)

# ---------------------------------------------------------------------------------------------
# Views for autograd (issue 4): diagonal (a writable view, the diagonal as the last dim, as
# torch) and diagonal_scatter (a copy).


def _diagonal_view(a: np.ndarray, offset: int, dim1: int, dim2: int, name: str) -> np.ndarray:
    if a.ndim < 2:
        raise ArgumentError(f"{name}: expected a tensor of at least 2 dims, got shape {_shape(a)}")
    d1, d2 = _wrap_dim(dim1, a.ndim, name), _wrap_dim(dim2, a.ndim, name)
    if d1 == d2:
        raise ArgumentError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    s1, s2 = a.shape[d1], a.shape[d2]
    n = max(min(s1, s2 - offset) if offset >= 0 else min(s1 + offset, s2), 0)
    start = [0] * a.ndim
    if n > 0:
        start[d2 if offset >= 0 else d1] = abs(offset)
    corner = a[tuple(np.s_[s:] for s in start)]
    rest = [d for d in range(a.ndim) if d not in (d1, d2)]
    shape = tuple(a.shape[d] for d in rest) + (n,)
    strides = tuple(a.strides[d] for d in rest) + (a.strides[d1] + a.strides[d2],)
    return np.lib.stride_tricks.as_strided(corner, shape, strides,
                                           writeable=bool(a.flags.writeable))


def diagonal(x: Any, offset: int, dim1: int, dim2: int) -> Any:
    return _view(_diagonal_view(_arr(x), offset, dim1, dim2, "diagonal"), x)


def diagonal_scatter(x: Any, source: Any, offset: int, dim1: int, dim2: int) -> Any:
    a, src = _arr(x), _arr(source)
    out = a.copy()
    diag = _diagonal_view(out, offset, dim1, dim2, "diagonal_scatter")
    if src.shape != diag.shape:
        raise ArgumentError(f"diagonal_scatter: source has shape {_shape(src)}, expected "
                            f"{_shape(diag)} (the diagonal of x {_shape(a)})")
    diag[...] = src
    return _new(out)
from transgrad.reference.kernels_linalg import *  # noqa: E402, F401, F403 - issue 15: factorisations
from transgrad.reference.kernels_special import *  # noqa: E402, F401, F403 - issue 15's section
from transgrad.reference.kernels_strided import as_strided, strided_positions  # noqa: E402, F401, E501 - issue 11
