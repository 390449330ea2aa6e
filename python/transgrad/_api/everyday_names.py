"""Names PyTorch programs call that transgrad lacked, each a composition of existing ops (or a
fact about CPU, strided, real tensors): found by walking ``dir(torch)`` and ``dir(torch.Tensor)``
against transgrad's names (issue 13) and keeping those common in programs.

Input: tensors of either engine. Output: torch's functions (``__all__``) and Tensor methods
(``METHODS``, installed by methods.py) with torch's signatures and results; gradients flow
through the ops they are made of (``trapezoid``, ``cosine_similarity``, ``matrix_power``, ...).
transgrad's tensors are real, dense, strided and on the CPU, so ``conj``, ``resolve_conj``,
``real`` are the tensor itself, ``imag`` raises torch's error, and the layout predicates answer
as torch's does for such a tensor.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable, Optional

import numpy as np

from transgrad._api import extra_functions as xfn
from transgrad._api import functions as fn
from transgrad._api import out_args as _out_args
from transgrad._api import shape_functions as shape_fn
from transgrad._api.factorizations import pinv
from transgrad._api.inplace import run_inplace
from transgrad._api.linalg import inverse
from transgrad._api.settings import strided
from transgrad._backend import backend_of, is_tensor
from transgrad._dtypes import is_floating, is_integral

__all__ = ["adjoint", "chain_matmul", "conj", "conj_physical", "cosine_similarity",
           "cumulative_trapezoid", "detach", "diagflat", "float_power", "gcd", "ger",
           "greater_equal", "heaviside", "is_complex", "is_conj", "is_neg", "is_same_size",
           "lcm", "less_equal", "matrix_power", "msort", "not_equal", "pairwise_distance",
           "pinverse", "real", "resolve_conj", "resolve_neg", "trapezoid",
           "trapz", "unravel_index", "vander"]

greater_equal, less_equal, not_equal = fn.ge, fn.le, fn.ne


def detach(input: Any) -> Any:
    """``input`` without history, sharing its storage."""
    return input.detach()


def is_complex(input: Any) -> bool:
    """False: transgrad's dtypes are real."""
    return False


def is_conj(input: Any) -> bool:
    """False: a real tensor has no conjugate bit."""
    return False


def is_neg(input: Any) -> bool:
    """False: a real tensor has no negative bit."""
    return False


def is_same_size(input: Any, other: Any) -> bool:
    """Whether the two shapes are equal."""
    return tuple(input.shape) == tuple(other.shape)


def conj(input: Any) -> Any:
    """The conjugate: a real tensor itself, as torch's ``conj`` of a real tensor."""
    return input


resolve_conj = resolve_neg = real = conj


def conj_physical(input: Any, *, out: Any = None) -> Any:
    """The conjugate, materialised: ``input`` for a real tensor (torch returns it too)."""
    if out is not None:
        return _out_args.write_out("conj_physical", conj_physical, (input,), {}, out)
    return input


def adjoint(input: Any) -> Any:
    """The conjugate transpose of the last two dims (a view)."""
    if input.ndim < 2:
        raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of "
                           f"matrices. Got {input.ndim}-D tensor.")
    return fn.transpose(input, -2, -1)


def _imag(self: Any) -> Any:
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def heaviside(input: Any, values: Any, *, out: Any = None) -> Any:
    """0 where ``input < 0``, ``values`` where it is 0, 1 where it is > 0."""
    if out is not None:
        return _out_args.write_out("heaviside", heaviside, (input, values), {}, out)
    if type(values) is not type(input) or not is_tensor(input):
        fn.check_tensors("heaviside", input, values, "values")
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    zero = fn.eq(input, 0)
    step = fn.cast(fn.gt(input, 0), input.dtype)
    return fn.where(zero, values, step)


def _integer_pair(name: str, input: Any, other: Any, f: Callable[..., Any]) -> Any:
    for t in (input, other):
        if not is_integral(t.dtype):
            raise NotImplementedError(f'"{name}_cpu" not implemented for '
                               f"'{'Float' if t.dtype.name == 'float32' else 'Double'}'")
    a, b = np.asarray(input.detach()), np.asarray(other.detach())
    return backend_of(input).from_numpy(np.asarray(f(a, b), order="C"))


def gcd(input: Any, other: Any, *, out: Any = None) -> Any:
    """Elementwise greatest common divisor of integer tensors (non-negative)."""
    if out is not None:
        return _out_args.write_out("gcd", gcd, (input, other), {}, out)
    if type(other) is not type(input) or not is_tensor(input):
        fn.check_tensors("gcd", input, other)
    return _integer_pair("gcd", input, other, np.gcd)


def lcm(input: Any, other: Any, *, out: Any = None) -> Any:
    """Elementwise least common multiple of integer tensors (non-negative)."""
    if out is not None:
        return _out_args.write_out("lcm", lcm, (input, other), {}, out)
    if type(other) is not type(input) or not is_tensor(input):
        fn.check_tensors("lcm", input, other)
    return _integer_pair("lcm", input, other, np.lcm)


def float_power(input: Any, exponent: Any, *, out: Any = None) -> Any:
    """``input ** exponent`` computed in float64 (torch's float_power)."""
    if out is not None:
        return _out_args.write_out("float_power", float_power, (input, exponent), {}, out)
    base = fn.cast(input, "float64") if is_tensor(input) else input
    exp = fn.cast(exponent, "float64") if is_tensor(exponent) else float(exponent)
    if not is_tensor(base):
        return fn.pow(backend_of(exp).from_numpy(np.asarray(float(base))), exp)
    return fn.pow(base, exp)


def matrix_power(input: Any, n: int, *, out: Any = None) -> Any:
    """``input`` (a square matrix or a batch of them) multiplied by itself ``n`` times; the
    identity for 0, powers of the inverse for negative ``n``."""
    if out is not None:
        return _out_args.write_out("matrix_power", matrix_power, (input, n), {}, out)
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, but "
                           f"they are {input.shape[-2] if input.ndim > 1 else input.shape[0]} "
                           f"by {input.shape[-1]} matrices")
    if n == 0:
        eye = np.broadcast_to(np.eye(input.shape[-1], dtype=np.dtype(input.dtype)),
                              tuple(input.shape))
        return backend_of(input).from_numpy(np.asarray(eye, order="C"))
    a = inverse(input) if n < 0 else input
    result, power, k = None, a, abs(n)
    while k:  # binary exponentiation: log2(n) products
        if k & 1:
            result = power if result is None else fn.matmul(result, power)
        k >>= 1
        if k:
            power = fn.matmul(power, power)
    return result


def msort(input: Any, *, out: Any = None) -> Any:
    """``input`` sorted along dim 0."""
    if out is not None:
        return _out_args.write_out("msort", msort, (input,), {}, out)
    return xfn.sort(input, 0).values


def diagflat(input: Any, offset: int = 0) -> Any:
    """A 2-d tensor with ``input``'s elements (flattened) on diagonal ``offset``."""
    return shape_fn.diag(fn.reshape(input, (-1,)), offset)


def ger(input: Any, vec2: Any, *, out: Any = None) -> Any:
    """The outer product (torch's deprecated name of ``outer``)."""
    if out is not None:
        return _out_args.write_out("ger", ger, (input, vec2), {}, out)
    return fn.outer(input, vec2)


def pinverse(input: Any, rcond: float = 1e-15) -> Any:
    """The Moore-Penrose pseudo-inverse (``linalg.pinv`` with ``rcond``)."""
    return pinv(input, rtol=rcond)


def chain_matmul(*matrices: Any, out: Any = None) -> Any:
    """The product of the 2-d ``matrices`` from left to right (deprecated, as torch says)."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                  "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
                  "more tensors rather than multiple parameters.", UserWarning, stacklevel=2)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    result = matrices[0]
    for m in matrices[1:]:
        result = fn.mm(result, m)
    return result


def vander(x: Any, N: Optional[int] = None, increasing: bool = False) -> Any:
    """The Vandermonde matrix of the 1-d ``x``: columns ``x ** (N-1) ... x ** 0`` (reversed
    when ``increasing``)."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    base = x if is_floating(x.dtype) else fn.cast(x, "int64")
    cols = [fn.pow(base, k) for k in range(n)]
    if not increasing:
        cols.reverse()
    if not cols:
        return backend_of(x).from_numpy(np.zeros((x.shape[0], 0), np.dtype(base.dtype)))
    return fn.stack(cols, 1)


def _trapezoid_dx(y: Any, dx: Any, dim: int) -> Any:
    n = y.shape[dim]
    if n == 0:
        return fn.sum(y, dim)
    first, last = fn.narrow(y, dim, 0, 1), fn.narrow(y, dim, n - 1, 1)
    total = fn.sub(fn.sum(y, dim), fn.mul(fn.add(fn.squeeze(first, dim),
                                                 fn.squeeze(last, dim)), 0.5))
    return fn.mul(total, dx)


def trapezoid(y: Any, x: Any = None, *, dx: Any = None, dim: int = -1) -> Any:
    """The trapezoidal rule along ``dim``: sample points ``x`` (a tensor) or a spacing ``dx``
    (default 1)."""
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments: x and dx "
                        "cannot both be given")
    d = dim % max(y.ndim, 1)
    if x is None or not is_tensor(x):
        return _trapezoid_dx(y, 1.0 if x is None and dx is None else (x if dx is None else dx),
                             d)
    n = y.shape[d]
    if n == 0:
        return fn.sum(y, d)
    dxs = shape_fn.diff(x, dim=-1 if x.ndim == 1 else d)
    if x.ndim == 1:  # spacing along dim, broadcast over the others
        shape = [1] * y.ndim
        shape[d] = n - 1
        dxs = fn.reshape(dxs, tuple(shape))
    mids = fn.add(fn.narrow(y, d, 1, n - 1), fn.narrow(y, d, 0, n - 1))
    return fn.sum(fn.mul(fn.mul(mids, dxs), 0.5), d)


def trapz(y: Any, x: Any = None, *, dx: Any = None, dim: int = -1) -> Any:
    """torch's older name of ``trapezoid``."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Any, x: Any = None, *, dx: Any = None, dim: int = -1) -> Any:
    """The running trapezoidal integral along ``dim`` (one fewer element than ``y``)."""
    d = dim % max(y.ndim, 1)
    n = y.shape[d]
    mids = fn.mul(fn.add(fn.narrow(y, d, 1, max(n - 1, 0)), fn.narrow(y, d, 0, max(n - 1, 0))),
                  0.5)
    if x is not None and is_tensor(x):
        dxs = shape_fn.diff(x, dim=-1 if x.ndim == 1 else d)
        if x.ndim == 1:
            shape = [1] * y.ndim
            shape[d] = n - 1
            dxs = fn.reshape(dxs, tuple(shape))
        mids = fn.mul(mids, dxs)
    else:
        mids = fn.mul(mids, 1.0 if x is None and dx is None else (x if dx is None else dx))
    return xfn.cumsum(mids, d)


def cosine_similarity(x1: Any, x2: Any, dim: int = 1, eps: float = 1e-8) -> Any:
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim`` (broadcast), each norm
    clamped below at ``eps`` as torch's."""
    dot = fn.sum(fn.mul(x1, x2), dim)
    n1 = fn.clamp(fn.sqrt(fn.sum(fn.mul(x1, x1), dim)), min=eps)
    n2 = fn.clamp(fn.sqrt(fn.sum(fn.mul(x2, x2), dim)), min=eps)
    return fn.div(dot, fn.mul(n1, n2))


def pairwise_distance(x1: Any, x2: Any, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Any:
    """The ``p``-norm of ``x1 - x2 + eps`` along the last dim."""
    diff = fn.add(fn.sub(x1, x2), eps)
    dim = -1 if max(x1.ndim, x2.ndim) > 0 else None
    return fn.norm(diff, p, dim, keepdim)


def unravel_index(indices: Any, shape: Any) -> Any:
    """The coordinates in ``shape`` of flat ``indices``: a tuple of int64 tensors."""
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s)
                                                                              for s in shape)
    if not is_integral(indices.dtype):
        raise TypeError("expected 'indices' to be integer dtype, but got "
                        f"{indices.dtype}")
    flat = np.asarray(indices.detach()).astype(np.int64)
    size = math.prod(shape)
    if np.any((flat < -size) | (flat >= size)):
        raise RuntimeError("'indices' must be in range [-{0}, {1})".format(size, size))
    coords = np.unravel_index(flat % size if size else flat, shape)
    B = backend_of(indices)
    return tuple(B.from_numpy(np.asarray(c, dtype=np.int64, order="C")) for c in coords)


# ---- Tensor methods --------------------------------------------------------------------------


def fill_diagonal_(self: Any, fill_value: Any, wrap: bool = False) -> Any:
    """In place: the main diagonal of a 2-d (or all-equal-sized) tensor set to ``fill_value``;
    ``wrap`` restarts it every ``ncols + 1`` rows of a tall matrix, as torch's."""
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    shape = tuple(self.shape)
    mask = np.zeros(shape, bool)
    if self.ndim == 2:
        rows, cols = shape
        step = cols + 1
        flat = np.arange(0, rows * cols if wrap else min(rows, cols) * cols, step)
        flat = flat[flat < rows * cols]
        mask.reshape(-1)[flat] = True
    else:
        idx = np.arange(shape[0])
        mask[(idx,) * self.ndim] = True
    B = backend_of(self)
    where = B.from_numpy(mask)
    value = B.from_numpy(np.asarray(fill_value).astype(np.dtype(self.dtype)))
    return run_inplace(self, lambda x: fn.where(where, value, x), (), None)


def apply_(self: Any, callable: Callable[[Any], Any]) -> Any:
    """In place: each element replaced by ``callable(element)`` (a Python loop, as torch's;
    refused on a tensor that requires grad, as torch)."""
    if self.requires_grad:
        raise RuntimeError("apply_ is only implemented on CPU tensors that do not require grad")
    a = np.asarray(self.detach())
    out = np.vectorize(callable, otypes=[a.dtype])(a) if a.size else a.copy()
    return run_inplace(self, lambda x: backend_of(x).from_numpy(np.asarray(out, order="C")),
                       (), None)


def map_(self: Any, tensor: Any, callable: Callable[[Any, Any], Any]) -> Any:
    """In place: each element ``a`` replaced by ``callable(a, b)``, ``b`` from ``tensor``
    broadcast to ``self``'s shape."""
    if self.requires_grad:
        raise RuntimeError("map_ is only implemented on CPU tensors that do not require grad")
    a = np.asarray(self.detach())
    b = np.broadcast_to(np.asarray(tensor.detach()), a.shape)
    out = np.vectorize(callable, otypes=[a.dtype])(a, b) if a.size else a.copy()
    return run_inplace(self, lambda x: backend_of(x).from_numpy(np.asarray(out, order="C")),
                       (), None)


def _true(self: Any) -> bool:
    return True


def _false(self: Any) -> bool:
    return False


def _self(self: Any, *args: Any, **kwargs: Any) -> Any:
    return self


def _pin_memory(self: Any, device: Any = None) -> Any:
    raise RuntimeError("Cannot access accelerator device when none is available.")


def storage_offset(self: Any) -> int:
    """The index of the tensor's first element in its storage."""
    from transgrad._api.views import offset_in_storage

    return offset_in_storage(self)


METHODS = {
    "greater_equal": fn.ge, "less_equal": fn.le, "not_equal": fn.ne, "greater": fn.gt,
    "less": fn.lt, "logical_xor": fn.logical_xor, "adjoint": adjoint,
    "H": property(lambda self: adjoint(self) if self.ndim == 2 else
                  (self if self.ndim == 0 else _h_error(self))),
    "mH": property(adjoint), "conj": conj, "conj_physical": conj_physical,
    "resolve_conj": resolve_conj, "resolve_neg": resolve_neg, "is_conj": _false,
    "is_neg": _false, "is_complex": _false, "is_same_size": is_same_size,
    "real": property(conj), "imag": property(_imag),
    "is_cpu": property(_true), "is_sparse": property(_false), "is_quantized": property(_false),
    "is_meta": property(_false), "is_mkldnn": property(_false), "is_nested": property(_false),
    "is_sparse_csr": property(_false), "layout": property(lambda self: strided),
    "is_pinned": _false, "pin_memory": _pin_memory, "share_memory_": _self,
    "storage_offset": storage_offset,
    "heaviside": heaviside, "gcd": gcd, "lcm": lcm, "float_power": float_power,
    "matrix_power": matrix_power, "msort": msort, "diagflat": diagflat, "ger": ger,
    "pinverse": pinverse, "split_with_sizes": fn.split_with_sizes,
    "fill_diagonal_": fill_diagonal_, "apply_": apply_, "map_": map_,
}


def _h_error(self: Any) -> Any:
    raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got "
                       f"{self.ndim}-D tensor.")
