"""PyTorch-style functions over a backend's ``ops``: ``sum(x, dim=None, keepdim=False)``,
``cat(tensors, dim=0)``, ``softmax(x, dim)``, ``where``, ``clamp``, ``matmul``, ...

Input: the backend. Output: a dict name -> function, installed as module functions and reused
as Tensor methods (methods.py). Each function normalises PyTorch-style arguments (an int or a
tuple of dims, ``-1`` in shapes, Python numbers) and calls one or a few ops; nothing is inspected
per call beyond what the arguments themselves require.

Scalars follow docs/ARCHITECTURE.md: a Python number meeting tensor ``t`` becomes a 0-d tensor of
``t``'s dtype when ``t`` is floating; for int64/bool ``t``, int64 (int) or float64 (float).
"""

from __future__ import annotations

import collections
import math
import numbers
from typing import Any, Dict, Optional, Sequence

import numpy as np

from transgrad._api import views
from transgrad._dtypes import as_dtype

MinMax = collections.namedtuple("MinMax", ["values", "indices"])
_F64, _I64 = np.dtype("float64"), np.dtype("int64")


def wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def dims_arg(dim: Any, ndim: int) -> tuple:
    """``dim`` as a tuple of dims: None -> all, int -> (int,)."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        return (int(dim),)
    return tuple(int(d) for d in dim)


def shape_arg(shape: Sequence[Any]) -> tuple:
    """``reshape(2, 3)`` and ``reshape((2, 3))`` alike."""
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def infer_shape(shape: tuple, numel: int) -> tuple:
    """Resolve one ``-1`` entry of a target shape."""
    if -1 not in shape:
        return shape
    known = math.prod(s for s in shape if s != -1)
    if shape.count(-1) > 1 or known == 0 or numel % known:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(numel // known if s == -1 else s for s in shape)


def _numpy_args(dim: Any, keepdim: bool, kw: Dict[str, Any]) -> tuple:
    """Accept numpy's spelling too (``axis=``, ``keepdims=``, ``out=None``), so that
    ``np.sum(t)`` and friends work on tensors."""
    if kw:
        if kw.pop("out", None) is not None:
            raise TypeError("out= is not supported")
        dim = kw.pop("axis", dim)
        keepdim = bool(kw.pop("keepdims", keepdim))
        if kw.pop("where", True) is not True:
            raise TypeError("where= is not supported")
        if kw:
            raise TypeError(f"unexpected keyword arguments {sorted(kw)}")
    return dim, keepdim


def make_functions(B: Any) -> Dict[str, Any]:  # noqa: C901 - one flat table of functions
    T = B.Tensor
    ops = B.ops
    from_numpy = B.from_numpy

    def scalar(like: Any, value: Any) -> Any:
        """The Python number ``value`` as a 0-d tensor next to tensor ``like`` (the scalar rule)."""
        d = like.dtype
        if d.kind not in "fc":
            d = _I64 if isinstance(value, (numbers.Integral, np.bool_)) else _F64
        return from_numpy(np.array(value, dtype=d))

    def as_tensor(value: Any, like: Any) -> Any:
        if isinstance(value, T):
            return value
        if type(value) is float or type(value) is int:  # the common case, without abc checks
            return scalar(like, value)
        if isinstance(value, (numbers.Number, np.bool_)):
            return scalar(like, value)
        a = np.asarray(value)
        if a.dtype.kind == "f" and like.dtype.kind == "f":
            a = a.astype(like.dtype)
        elif a.dtype.kind in "iu":
            a = a.astype(_I64)
        return from_numpy(np.asarray(a, order="C"))

    def _binary(name: str) -> Any:
        def fn(x: Any, other: Any) -> Any:
            if not isinstance(x, T):
                x = as_tensor(x, other)
            return getattr(ops, name)(x, as_tensor(other, x))

        fn.__name__ = fn.__qualname__ = name
        return fn

    F: Dict[str, Any] = {}
    for name in ("mul", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge"):
        F[name] = _binary(name)
    _div = _binary("div")

    def add(x: Any, other: Any, alpha: Any = 1) -> Any:
        if alpha != 1:
            other = F["mul"](as_tensor(other, x), alpha)
        if not isinstance(x, T):
            x = as_tensor(x, other)
        return ops.add(x, as_tensor(other, x))

    def sub(x: Any, other: Any, alpha: Any = 1) -> Any:
        if alpha != 1:
            other = F["mul"](as_tensor(other, x), alpha)
        if not isinstance(x, T):
            x = as_tensor(x, other)
        return ops.sub(x, as_tensor(other, x))

    def div(x: Any, other: Any, rounding_mode: Optional[str] = None) -> Any:
        if rounding_mode is not None:
            raise NotImplementedError("div(rounding_mode=...) is not differentiable; use "
                                      "numpy on the data")
        return _div(x, other)

    def pow(x: Any, exponent: Any) -> Any:  # noqa: A001
        if isinstance(exponent, T):
            if not isinstance(x, T):
                x = as_tensor(x, exponent)
            return ops.pow(x, exponent)
        return ops.pow_scalar(x, float(exponent))

    def where(condition: Any, x: Any, other: Any) -> Any:
        if not isinstance(x, T) and not isinstance(other, T):
            x = from_numpy(np.array(x, dtype=_F64 if isinstance(x, float) else _I64))
        if not isinstance(x, T):
            x = as_tensor(x, other)
        if not isinstance(condition, T):
            condition = from_numpy(np.asarray(condition, dtype=bool))
        return ops.where(condition, x, as_tensor(other, x))

    def clamp(x: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A002
        if isinstance(min, T) or isinstance(max, T):
            if min is not None:
                x = F["maximum"](x, min)
            if max is not None:
                x = F["minimum"](x, max)
            return x
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        return ops.clamp(x, None if min is None else float(min),
                         None if max is None else float(max))

    def square(x: Any) -> Any:
        return ops.mul(x, x)

    def log2(x: Any) -> Any:
        return F["mul"](ops.log(x), 1.0 / math.log(2.0))

    def log10(x: Any) -> Any:
        return F["mul"](ops.log(x), 1.0 / math.log(10.0))

    def cast(x: Any, dtype: Any) -> Any:
        d = as_dtype(dtype)
        return x if x.dtype == d else ops.cast(x, d.name)

    # -- reductions ------------------------------------------------------------------------

    def sum(x: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None,  # noqa: A001
            **numpy_kw: Any) -> Any:
        dim, keepdim = _numpy_args(dim, keepdim, numpy_kw)
        if dtype is not None:
            x = cast(x, dtype)
        return ops.sum(x, dims_arg(dim, x.ndim), keepdim)

    def mean(x: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None,
             **numpy_kw: Any) -> Any:
        dim, keepdim = _numpy_args(dim, keepdim, numpy_kw)
        if dtype is not None:
            x = cast(x, dtype)
        return ops.mean(x, dims_arg(dim, x.ndim), keepdim)

    def amax(x: Any, dim: Any = None, keepdim: bool = False, **numpy_kw: Any) -> Any:
        dim, keepdim = _numpy_args(dim, keepdim, numpy_kw)
        return ops.amax(x, dims_arg(dim, x.ndim), keepdim)

    def amin(x: Any, dim: Any = None, keepdim: bool = False, **numpy_kw: Any) -> Any:
        dim, keepdim = _numpy_args(dim, keepdim, numpy_kw)
        return ops.amin(x, dims_arg(dim, x.ndim), keepdim)

    def max(x: Any, dim: Any = None, keepdim: bool = False, **numpy_kw: Any) -> Any:  # noqa: A001
        """``max(x)`` (all elements), ``max(x, dim)`` -> (values, indices), ``max(x, other)``."""
        if numpy_kw:  # np.max(t, axis=...): numpy semantics, values only
            dim, keepdim = _numpy_args(dim, keepdim, numpy_kw)
            return amax(x, dim, keepdim)
        if dim is None:
            return ops.amax(x, tuple(range(x.ndim)), False)
        if isinstance(dim, T):
            return F["maximum"](x, dim)
        values, indices = ops.max_dim(x, int(dim), keepdim)
        return MinMax(values, indices)

    def min(x: Any, dim: Any = None, keepdim: bool = False, **numpy_kw: Any) -> Any:  # noqa: A001
        if numpy_kw:
            dim, keepdim = _numpy_args(dim, keepdim, numpy_kw)
            return amin(x, dim, keepdim)
        if dim is None:
            return ops.amin(x, tuple(range(x.ndim)), False)
        if isinstance(dim, T):
            return F["minimum"](x, dim)
        values, indices = ops.min_dim(x, int(dim), keepdim)
        return MinMax(values, indices)

    def logsumexp(x: Any, dim: Any, keepdim: bool = False) -> Any:
        return ops.logsumexp(x, dims_arg(dim, x.ndim), keepdim)

    def softmax(x: Any, dim: int, dtype: Any = None) -> Any:
        return ops.softmax(x if dtype is None else cast(x, dtype), dim)

    def log_softmax(x: Any, dim: int, dtype: Any = None) -> Any:
        return ops.log_softmax(x if dtype is None else cast(x, dtype), dim)

    def var(x: Any, dim: Any = None, keepdim: bool = False, correction: int = 1,
            unbiased: Optional[bool] = None) -> Any:
        if unbiased is not None:
            correction = 1 if unbiased else 0
        dims = dims_arg(dim, x.ndim)
        n = math.prod(x.shape[d] for d in dims) if x.ndim else 1
        centered = ops.sub(x, ops.mean(x, dims, True))
        total = ops.sum(ops.mul(centered, centered), dims, keepdim)
        return _div(total, float(n - correction) if n > correction else float("nan"))

    def std(x: Any, dim: Any = None, keepdim: bool = False, correction: int = 1,
            unbiased: Optional[bool] = None) -> Any:
        return ops.sqrt(var(x, dim, keepdim, correction, unbiased))

    def norm(x: Any, p: Any = 2, dim: Any = None, keepdim: bool = False) -> Any:
        dims = dims_arg(dim, x.ndim)
        if p == 2 or p == "fro":
            return ops.sqrt(ops.sum(ops.mul(x, x), dims, keepdim))
        if p == 1:
            return ops.sum(ops.abs(x), dims, keepdim)
        if p == float("inf"):
            return ops.amax(ops.abs(x), dims, keepdim)
        return ops.pow_scalar(ops.sum(ops.pow_scalar(ops.abs(x), float(p)), dims, keepdim),
                              1.0 / p)

    # -- shape -----------------------------------------------------------------------------

    def reshape(x: Any, *shape: Any) -> Any:
        shape = infer_shape(shape_arg(shape), math.prod(x.shape))
        return ops.reshape(x, shape)

    def flatten(x: Any, start_dim: int = 0, end_dim: int = -1) -> Any:
        if x.ndim == 0:
            return ops.reshape(x, (1,))
        s, e = wrap_dim(start_dim, x.ndim), wrap_dim(end_dim, x.ndim)
        shape = tuple(x.shape)
        return reshape(x, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])

    def unflatten(x: Any, dim: int, sizes: Sequence[int]) -> Any:
        d = wrap_dim(dim, x.ndim)
        shape = tuple(x.shape)
        return reshape(x, shape[:d] + infer_shape(tuple(sizes), shape[d]) + shape[d + 1:])

    def squeeze(x: Any, dim: Any = None) -> Any:
        shape = tuple(x.shape)
        dims = [wrap_dim(d, x.ndim) for d in dims_arg(dim, x.ndim)]
        return ops.squeeze(x, tuple(d for d in dims if x.ndim and shape[d] == 1))

    def unsqueeze(x: Any, dim: int) -> Any:
        return ops.unsqueeze(x, dim)

    def expand(x: Any, *sizes: Any) -> Any:
        sizes = shape_arg(sizes)
        lead = len(sizes) - x.ndim
        if lead < 0:
            raise RuntimeError(f"expand: the number of sizes provided ({len(sizes)}) must be "
                               f"greater or equal to the number of dimensions ({x.ndim})")
        shape = tuple(x.shape[i - lead] if s == -1 and i >= lead else s
                      for i, s in enumerate(sizes))
        return ops.expand(x, shape)

    def broadcast_to(x: Any, shape: Sequence[int]) -> Any:
        return expand(x, tuple(shape))

    def broadcast_tensors(*tensors: Any) -> tuple:
        shape = np.broadcast_shapes(*(tuple(t.shape) for t in tensors))
        return tuple(expand(t, shape) for t in tensors)

    def permute(x: Any, *dims: Any) -> Any:
        return ops.permute(x, shape_arg(dims))

    def transpose(x: Any, dim0: int, dim1: int) -> Any:
        return ops.transpose(x, dim0, dim1)

    def t(x: Any) -> Any:
        if x.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
        return x if x.ndim < 2 else ops.transpose(x, 0, 1)

    def movedim(x: Any, source: int, destination: int) -> Any:
        s, d = wrap_dim(source, x.ndim), wrap_dim(destination, x.ndim)
        order = [i for i in range(x.ndim) if i != s]
        order.insert(d, s)
        return ops.permute(x, tuple(order))

    def contiguous(x: Any) -> Any:
        return ops.contiguous(x)

    def clone(x: Any) -> Any:
        return ops.clone(x)

    def cat(tensors: Sequence[Any], dim: int = 0) -> Any:
        return ops.cat(list(tensors), dim)

    def stack(tensors: Sequence[Any], dim: int = 0) -> Any:
        return ops.stack(list(tensors), dim)

    def narrow(x: Any, dim: int, start: int, length: int) -> Any:
        return ops.slice(x, dim, start, start + length, 1)

    def split(x: Any, split_size_or_sections: Any, dim: int = 0) -> tuple:
        d = wrap_dim(dim, x.ndim)
        n = x.shape[d]
        if isinstance(split_size_or_sections, (int, np.integer)):
            step = int(split_size_or_sections)
            sizes = [builtins_min(step, n - i) for i in range(0, n, step)] or [0]
        else:
            sizes = list(split_size_or_sections)
            if builtins_sum(sizes) != n:
                raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                                   f"(input tensor's size at dimension {dim}), but got "
                                   f"split_sizes={sizes}")
        out, start = [], 0
        for s in sizes:
            out.append(ops.slice(x, d, start, start + s, 1))
            start += s
        return tuple(out)

    def chunk(x: Any, chunks: int, dim: int = 0) -> tuple:
        n = x.shape[wrap_dim(dim, x.ndim)]
        return split(x, builtins_max(-(-n // chunks), 1), dim)

    def unbind(x: Any, dim: int = 0) -> tuple:
        return tuple(ops.select(x, dim, i) for i in range(x.shape[wrap_dim(dim, x.ndim)]))

    # -- indexing --------------------------------------------------------------------------

    def _index(index: Any) -> Any:
        return index if isinstance(index, T) else from_numpy(
            np.asarray(index, dtype=_I64, order="C"))

    def index_select(x: Any, dim: int, index: Any) -> Any:
        return ops.index_select(x, dim, _index(index))

    def gather(x: Any, dim: int, index: Any) -> Any:
        return ops.gather(x, dim, _index(index))

    def index_add(x: Any, dim: int, index: Any, source: Any, alpha: Any = 1) -> Any:
        if alpha != 1:
            source = F["mul"](source, alpha)
        return ops.index_add(x, dim, _index(index), source)

    def scatter_add(x: Any, dim: int, index: Any, src: Any) -> Any:
        return ops.scatter_add(x, dim, _index(index), src)

    def slice_scatter(x: Any, src: Any, dim: int = 0, start: Optional[int] = None,
                      end: Optional[int] = None, step: int = 1) -> Any:
        return ops.slice_scatter(x, src, dim, start, end, step)

    def select_scatter(x: Any, src: Any, dim: int, index: int) -> Any:
        return ops.select_scatter(x, src, dim, index)

    def select(x: Any, dim: int, index: int) -> Any:
        return ops.select(x, dim, index)

    def diagonal(x: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
        return ops.diagonal(x, offset, dim1, dim2)

    def diagonal_scatter(x: Any, src: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
        return ops.diagonal_scatter(x, src, offset, dim1, dim2)

    # -- linear algebra --------------------------------------------------------------------

    def matmul(x: Any, other: Any) -> Any:
        if not isinstance(other, T):
            other = as_tensor(other, x)
        return ops.matmul(x, other)

    def mm(x: Any, other: Any) -> Any:
        if x.ndim != 2 or other.ndim != 2:
            raise RuntimeError(f"mm: both arguments must be 2-D, got shapes {tuple(x.shape)} "
                               f"and {tuple(other.shape)}")
        return ops.matmul(x, other)

    def bmm(x: Any, other: Any) -> Any:
        if x.ndim != 3 or other.ndim != 3:
            raise RuntimeError(f"bmm: both arguments must be 3-D, got shapes {tuple(x.shape)} "
                               f"and {tuple(other.shape)}")
        return ops.matmul(x, other)

    def dot(x: Any, other: Any) -> Any:
        if x.ndim != 1 or other.ndim != 1:
            raise RuntimeError("1D tensors expected, but got "
                               f"{x.ndim}D and {other.ndim}D tensors")
        return ops.matmul(x, other)

    def outer(x: Any, other: Any) -> Any:
        return ops.mul(ops.unsqueeze(x, 1), ops.unsqueeze(other, 0))

    # -- not differentiable: computed on the data ------------------------------------------

    def _data(x: Any) -> np.ndarray:
        return np.asarray(x.detach() if x.requires_grad else x)

    def _from(a: Any) -> Any:
        return from_numpy(np.asarray(a, order="C"))

    def argmax(x: Any, dim: Optional[int] = None, keepdim: bool = False) -> Any:
        a = _data(x)
        if dim is None:
            return _from(np.array(np.argmax(a), dtype=_I64))
        return _from(np.argmax(a, axis=dim, keepdims=keepdim).astype(_I64))

    def argmin(x: Any, dim: Optional[int] = None, keepdim: bool = False) -> Any:
        a = _data(x)
        if dim is None:
            return _from(np.array(np.argmin(a), dtype=_I64))
        return _from(np.argmin(a, axis=dim, keepdims=keepdim).astype(_I64))

    def all(x: Any, dim: Optional[int] = None, keepdim: bool = False) -> Any:  # noqa: A001
        return _from(np.all(_data(x), axis=dim, keepdims=keepdim))

    def any(x: Any, dim: Optional[int] = None, keepdim: bool = False) -> Any:  # noqa: A001
        return _from(np.any(_data(x), axis=dim, keepdims=keepdim))

    def logical_not(x: Any) -> Any:
        return _from(np.logical_not(_data(x)))

    def logical_and(x: Any, other: Any) -> Any:
        return _from(np.logical_and(_data(x), np.asarray(other)))

    def logical_or(x: Any, other: Any) -> Any:
        return _from(np.logical_or(_data(x), np.asarray(other)))

    def logical_xor(x: Any, other: Any) -> Any:
        return _from(np.logical_xor(_data(x), np.asarray(other)))

    def floor(x: Any) -> Any:
        return _from(np.floor(_data(x)))

    def ceil(x: Any) -> Any:
        return _from(np.ceil(_data(x)))

    def round(x: Any) -> Any:  # noqa: A001
        return _from(np.round(_data(x)))

    def trunc(x: Any) -> Any:
        return _from(np.trunc(_data(x)))

    def floor_divide(x: Any, other: Any) -> Any:
        """Not differentiable (piecewise constant): computed on the data."""
        other = _data(other) if isinstance(other, T) else np.asarray(other)
        return _from(np.floor_divide(_data(x), other))

    def remainder(x: Any, other: Any) -> Any:
        """``x - floor_divide(x, other) * other`` (Python's sign rule), differentiable."""
        return sub(x, F["mul"](as_tensor(floor_divide(x, other), x), other))

    def isnan(x: Any) -> Any:
        return _from(np.isnan(_data(x)))

    def isinf(x: Any) -> Any:
        return _from(np.isinf(_data(x)))

    def isfinite(x: Any) -> Any:
        return _from(np.isfinite(_data(x)))

    def allclose(x: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
                 equal_nan: bool = False) -> bool:
        return bool(np.allclose(_data(x), _data(other), rtol, atol, equal_nan))

    def equal(x: Any, other: Any) -> bool:
        return tuple(x.shape) == tuple(other.shape) and bool(np.array_equal(_data(x),
                                                                           _data(other)))

    loc = dict(locals())
    for k, v in loc.items():
        if callable(v) and not k.startswith("_") and k not in ("scalar", "as_tensor", "T", "B",
                                                                "from_numpy", "ops", "F"):
            F.setdefault(k, v)
    for name in ("neg", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "reciprocal", "sin",
                 "cos", "tan", "tanh", "sigmoid", "relu", "abs", "sign", "erf"):
        F[name] = _unary(ops, name)
    F["negative"], F["true_divide"], F["concat"], F["concatenate"] = F["neg"], div, cat, cat
    F["clip"], F["swapaxes"], F["absolute"], F["multiply"] = clamp, transpose, F["abs"], F["mul"]
    F["subtract"], F["divide"], F["greater"], F["less"] = sub, div, F["gt"], F["lt"]
    F["_scalar"], F["_as_tensor"] = scalar, as_tensor
    views.track(B, F)  # view results know their base (Note [In-place on views])
    return F


def _unary(ops: Any, name: str) -> Any:
    def fn(x: Any) -> Any:
        return getattr(ops, name)(x)

    fn.__name__ = fn.__qualname__ = name
    return fn


builtins_min, builtins_max, builtins_sum = min, max, sum
