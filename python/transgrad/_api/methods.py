"""The Tensor method table, shared by both engines, and its installation on an engine's Tensor
class (a Python class or a pybind11 class alike: only ``setattr`` is used).

Input: the module-level functions (functions.py, extra_functions.py), indexing and in-place
machinery. Output: ``METHODS`` (name -> function or property, one table for both engines) and
``install(backend, factories)``, which sets them on ``backend.Tensor`` once, with the arithmetic
operators the backend chooses (``backend.operators``: the compiled engine's C++ fast paths).
Every method finds its engine from ``self`` (``backend_of``).

Operators follow docs/ARCHITECTURE.md ("Operators and scalars"): ``+ - * / @``, unary ``-``,
``t ** number`` -> pow_scalar, ``t ** tensor`` -> pow, comparisons -> eq/ne/lt/le/gt/ge; reflected
forms wrap the number with the scalar rule. In-place variants: Note [In-place ops] in inplace.py.
"""

from __future__ import annotations

import builtins
import math
from typing import Any, Callable, Dict, Optional

import numpy as np

from transgrad._api import composites as cfn
from transgrad._api import counting as kfn
from transgrad._api import (
    dlpack,
    everyday_names,
    inplace_shape,
    memory_formats,
    predicates,
    statistics,
)
from transgrad._api import extra_functions as xfn
from transgrad._api import factorizations as qfn
from transgrad._api import functions as fn
from transgrad._api import linalg as lfn
from transgrad._api import pointwise as pfn
from transgrad._api import reductions as rfn
from transgrad._api import scatter as sfn
from transgrad._api import search_functions as search_fn
from transgrad._api import shape_functions as shape_fn
from transgrad._api.functions import as_tensor, scalar, shape_arg
from transgrad._api.indexing import getitem, setitem
from transgrad._api.inplace import _TORCH_NAMES, run_inplace
from transgrad._api.legacy import type_
from transgrad._api.printing import tensor_repr
from transgrad._api.views import registry_for
from transgrad._backend import Backend, backend_named, backend_of, is_tensor
from transgrad._device import CPU, check_device, is_device_like
from transgrad._dtypes import as_dtype, is_floating, is_floating_or_complex
from transgrad._errors import ArgumentError
from transgrad._size import Size


class _Numel(int):
    """``x.numel`` is an int that can also be called (``x.numel()``), as formulas read it as
    metadata and PyTorch users call it."""

    def __call__(self) -> int:
        return int(self)


# ---- methods that are the functions with the tensor first -----------------------------------

FUNCTION_METHODS = (
    "neg", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan",
    "tanh", "sigmoid", "relu", "abs", "sign", "erf", "square", "log2", "log10", "add", "sub",
    "mul", "div", "pow", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "clamp",
    "clip", "sum", "mean", "amax", "amin", "max", "min", "logsumexp", "softmax", "log_softmax",
    "var", "std", "norm", "reshape", "flatten", "unflatten", "squeeze", "unsqueeze", "expand",
    "broadcast_to", "permute", "transpose", "swapaxes", "t", "movedim", "contiguous", "clone",
    "narrow", "split", "split_with_sizes", "chunk", "unbind", "index_select", "gather",
    "index_add", "scatter_add",
    "select", "diagonal", "matmul", "mm", "bmm", "dot", "outer", "argmax", "argmin", "all",
    "any", "logical_not", "logical_and", "logical_or", "isnan", "isinf", "isfinite",
    "allclose", "equal", "negative", "multiply", "subtract", "divide", "true_divide",
    "absolute", "floor", "ceil", "round", "trunc", "floor_divide", "remainder", "fmod",
    "fix", "diagonal_scatter", "select_scatter", "slice_scatter", "bitwise_not", "bitwise_and",
    "bitwise_or", "bitwise_xor")
EXTRA_FUNCTION_METHODS = ("cumsum", "tril", "triu", "sort", "argsort", "topk", "masked_fill",
                          "roll", "mv", "repeat")
# The functions of the derivative-table families that torch also has as Tensor methods (not
# var_mean, std_mean, cdist, pdist, block_diag: torch has no such methods).
TABLE_METHODS = {
    pfn: ("acos", "acosh", "addcdiv", "addcmul", "arccos", "arccosh", "arcsin", "arcsinh",
          "arctan", "arctan2", "arctanh", "asin", "asinh", "atan", "atan2", "atanh", "clamp_max",
          "clamp_min", "cosh", "deg2rad", "digamma", "erfc", "erfinv", "exp2", "frac",
          "hardshrink", "hypot", "lerp", "lgamma", "logaddexp", "logaddexp2", "logit",
          "nan_to_num", "rad2deg", "sgn", "sinh", "xlogy"),
    rfn: ("aminmax", "cummax", "cummin", "cumprod", "kthvalue", "logcumsumexp", "median",
          "nansum", "prod"),
    lfn: ("addbmm", "addmm", "addmv", "addr", "baddbmm", "det", "dist", "inverse", "logdet",
          "slogdet", "trace"),
    sfn: ("diag_embed", "index_copy", "index_fill", "index_reduce", "masked_scatter",
          "masked_select", "rot90",
          "scatter", "scatter_reduce", "take", "unfold"),
    shape_fn: ("kron", "diff", "tensordot", "repeat_interleave", "tile", "ravel", "moveaxis",
               "swapdims", "tensor_split", "hsplit", "vsplit", "dsplit", "take_along_dim", "diag",
               "fliplr", "flipud", "inner", "cross", "positive"),
    search_fn: ("argwhere", "bincount", "isin"),
    predicates: ("isclose", "isreal", "isneginf", "isposinf", "signbit", "is_nonzero"),
    statistics: ("quantile", "nanquantile", "nanmean", "cov", "corrcoef"),
    cfn: ("copysign", "count_nonzero", "fmax", "fmin", "frexp", "i0", "index_put", "ldexp",
          "mode", "nextafter",
          "mvlgamma",
          "nanmedian", "narrow_copy", "put", "renorm", "sinc", "unsafe_chunk", "unsafe_split",
          "unsafe_split_with_sizes", "vdot"),
    kfn: ("histc", "nonzero", "unique", "unique_consecutive"),
    qfn: ("cholesky", "cholesky_inverse", "cholesky_solve", "lu", "lu_solve", "matrix_exp", "qr",
          "svd", "triangular_solve"),
}


def where(self: Any, condition: Any, other: Any) -> Any:
    """``x.where(condition, other)``: x where condition holds, else other."""
    return fn.where(condition, self, other)


def flip(self: Any, *dims: Any) -> Any:
    """``x.flip(0, 1)`` and ``x.flip((0, 1))`` alike."""
    return xfn.flip(self, dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims)


def _T(self: Any) -> Any:
    return self if self.ndim < 2 else fn.permute(self, tuple(reversed(range(self.ndim))))


def _mT(self: Any) -> Any:
    return fn.transpose(self, -2, -1)


def view(self: Any, *shape: Any) -> Any:
    """``x.view(*shape)``: the same storage seen with another shape. Unlike ``reshape`` it never
    copies: a layout that no strides can express raises torch's error."""
    target = fn.infer_shape(shape_arg(shape), math.prod(self.shape))
    a = np.asarray(self)  # zero-copy: its strides are the tensor's
    strides = tuple(st // a.itemsize for st in a.strides)
    if a.size and not a.flags.c_contiguous and _view_strides(
            tuple(self.shape), strides, target) is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    return fn.reshape(self, target)


def _view_strides(old: tuple, strides: tuple, new: tuple) -> Optional[tuple]:
    """The strides of ``new`` over a tensor of shape ``old`` and ``strides``, or None when no
    strides express it. Walks ``old`` from the last dim, in chunks of dims that are contiguous
    with each other; each chunk must be exactly covered by a run of ``new``'s dims."""
    out = [0] * len(new)
    d = len(new) - 1
    base = strides[-1]
    old_numel = new_numel = 1
    for i in range(len(old) - 1, -1, -1):
        old_numel *= old[i]
        chunk_ends = i == 0 or (old[i - 1] != 1 and strides[i - 1] != old_numel * base)
        if not chunk_ends:
            continue
        while d >= 0 and (new_numel < old_numel or new[d] == 1):
            out[d] = new_numel * base
            new_numel *= new[d]
            d -= 1
        if new_numel != old_numel:
            return None
        if i > 0:
            base, old_numel, new_numel = strides[i - 1], 1, 1
    return tuple(out) if d == -1 else None


def view_as(self: Any, other: Any) -> Any:
    return view(self, *other.shape)


def expand_as(self: Any, other: Any) -> Any:
    return fn.expand(self, tuple(other.shape))


def sum_to_size(self: Any, *size: Any) -> Any:
    shape = shape_arg(size)
    if not _expandable(shape, tuple(self.shape)):
        raise ArgumentError(f"size {{{list(shape)}}} is not expandable to size "
                            f"{{{list(self.shape)}}}.")
    if not shape:  # torch's sum_to of size () is a full sum, even of a 0-d tensor (bool: int64)
        return fn.sum(self)
    return backend_of(self).ops.sum_to(self, shape)


def _expandable(small: tuple, big: tuple) -> bool:
    """``small`` broadcasts to ``big`` (torch's is_expandable_to)."""
    if len(small) > len(big):
        return False
    return all(s in (1, b) for s, b in zip(small[::-1], big[::-1]))


# ---- metadata and conversion ----------------------------------------------------------------

def _numel(self: Any) -> _Numel:
    return _Numel(math.prod(self.shape))


def nelement(self: Any) -> int:
    return math.prod(self.shape)


def dim(self: Any) -> int:
    return self.ndim


def size(self: Any, dim: Any = None) -> Any:
    """``x.size()``: the shape, a ``transgrad.Size``; ``x.size(dim)``: one size, an int."""
    return self.shape if dim is None else self.shape[dim]


def _data(self: Any) -> Any:
    return self.detach()  # PyTorch's x.data: same storage, no history


def _set_data(self: Any, value: Any) -> None:
    """``x.data = y``: ``x`` (the same object) now holds ``y``'s storage, shape and dtype, and
    keeps its autograd state, as torch's; the engine's ``Tensor._set_data`` swaps the storage."""
    if not is_tensor(value):
        raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
    if backend_of(value) is not backend_of(self):
        raise TypeError("x.data = y: y is a tensor of another transgrad engine")
    if self.requires_grad and not is_floating_or_complex(value.dtype):
        raise RuntimeError("data set to a tensor that requires gradients must be floating "
                           "point or complex dtype")
    self._set_data(value)


def _del_data(self: Any) -> None:
    raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")  # torch's


# torch's words for view.detach_()
VIEW_DETACH_MESSAGE = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
    "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
    "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
    "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")


def detach_(self: Any) -> Any:
    """``x.detach_()``: x loses its history in place; a view cannot (its base keeps it), as
    torch's. The views are the API's registry; the engine drops the history."""
    if registry_for(backend_of(self)).get(self) is not None:
        raise RuntimeError(VIEW_DETACH_MESSAGE)
    return self._detach_inplace()


def _is_int(a: Any) -> bool:
    return isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_))


# Note [Tensor.new]
# ~~~~~~~~~~~~~~~~~
# torch tells a size from data by type: ``torch.Size`` (what ``x.size()`` and ``x.shape`` return,
# ``transgrad.Size`` here) is a size, a plain tuple or list is data: ``x.new(x.size())`` makes a
# tensor of that size, ``x.new((2, 3))`` one holding 2 and 3.
def new(self: Any, *args: Any, device: Any = None) -> Any:
    """Legacy constructor (Note [Tensor.new]): ``x.new()`` empty, ``x.new(2, 3)`` or
    ``x.new(x.size())`` a tensor of that size (zeros), ``x.new([1, 2])`` data in x's dtype,
    ``x.new(t)`` an alias of ``t`` (same dtype required). Never requires grad."""
    if not args:
        return _factory(self, "zeros")(0, dtype=self.dtype)
    if len(args) == 1 and is_tensor(args[0]):
        other = args[0]
        if other.dtype != self.dtype:
            raise TypeError(f"new(): expected a tensor of dtype {self.dtype} (got "
                            f"{other.dtype})")
        return other.detach()
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    elif len(args) == 1 and isinstance(args[0], (list, tuple, np.ndarray)):
        return _factory(self, "tensor")(args[0], dtype=self.dtype)
    elif len(args) == 1 and not _is_int(args[0]):
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    for a in args:
        if not _is_int(a):
            raise TypeError(f"new(): sizes must be ints (got {type(a).__name__})")
    return _factory(self, "zeros")(*args, dtype=self.dtype)


def cpu(self: Any) -> Any:
    return self


def is_floating_point(self: Any) -> bool:
    return is_floating(self.dtype)


def element_size(self: Any) -> int:
    """Bytes per element."""
    return builtins.int(self.dtype.itemsize)


def ndimension(self: Any) -> int:
    return builtins.int(self.ndim)


def is_signed(self: Any) -> bool:
    """Whether the dtype holds negative numbers (every floating and signed integer dtype)."""
    return is_floating_or_complex(self.dtype) or self.dtype.kind == "i"


def get_device(self: Any) -> int:
    """-1: the tensor is on the CPU (torch's answer for a CPU tensor)."""
    return -1


def tolist(self: Any) -> Any:
    return np.asarray(self).tolist()


def to(self: Any, *args: Any, dtype: Any = None, device: Any = None, non_blocking: bool = False,
       copy: bool = False, memory_format: Any = None) -> Any:
    """``x.to(dtype)``, ``x.to(device)``, ``x.to(device, dtype)``, ``x.to(other)``: the CPU is
    the only device (another raises, transgrad/_device.py); ``self`` when nothing changes."""
    flags = []  # torch's positional non_blocking and copy, after the device/dtype/tensor
    for a in args:
        if isinstance(a, bool):
            flags.append(a)
        elif is_tensor(a):
            dtype = a.dtype
        elif is_device_like(a):
            device = a
        else:
            dtype = a
    if len(flags) > 1:
        copy = flags[1]
    check_device(device)
    if dtype is None or as_dtype(dtype) == self.dtype:
        out = fn.clone(self) if copy else self
    else:
        out = fn.cast(self, dtype)
    if memory_format is None or memory_format is memory_formats.preserve_format:
        return out
    # another layout: a copy in it unless the tensor already has it (torch's .to)
    return memory_formats.contiguous(out, memory_format=memory_format)


def cuda(self: Any, device: Any = None, non_blocking: bool = False) -> Any:
    check_device("cuda" if device is None else device)  # raises: there is no CUDA device
    return self


def type_as(self: Any, other: Any) -> Any:
    return fn.cast(self, other.dtype)


# The dtype conversions take torch's ``memory_format`` (the layout of a copy; transgrad's
# copies are contiguous, which is torch's result for the samples' dense inputs).
def float_(self: Any, memory_format: Any = None) -> Any:
    return fn.cast(self, "float32")


def double(self: Any, memory_format: Any = None) -> Any:
    return fn.cast(self, "float64")


def long(self: Any, memory_format: Any = None) -> Any:
    return fn.cast(self, "int64")


def half(self: Any, memory_format: Any = None) -> Any:
    return fn.cast(self, "float16")


def bfloat16(self: Any, memory_format: Any = None) -> Any:
    return fn.cast(self, "bfloat16")


def int_(self: Any, memory_format: Any = None) -> Any:
    return fn.cast(self, "int32")


def short(self: Any, memory_format: Any = None) -> Any:
    return fn.cast(self, "int16")


def char(self: Any, memory_format: Any = None) -> Any:
    return fn.cast(self, "int8")


def byte(self: Any, memory_format: Any = None) -> Any:
    return fn.cast(self, "uint8")


def bool_(self: Any, memory_format: Any = None) -> Any:
    return fn.cast(self, "bool")


# The engines' factories, by engine name (tensors made "next to" another need its engine's).
_FACTORIES: Dict[str, Any] = {}


def _factory(self: Any, name: str) -> Any:
    return getattr(_FACTORIES[backend_of(self).name], name)


def new_zeros(self: Any, *size: Any, dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Any:
    return _factory(self, "zeros")(*size, dtype=dtype or self.dtype, device=device,
                                   requires_grad=requires_grad)


def new_ones(self: Any, *size: Any, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Any:
    return _factory(self, "ones")(*size, dtype=dtype or self.dtype, device=device,
                                  requires_grad=requires_grad)


def new_full(self: Any, size: Any, value: Any, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Any:
    return _factory(self, "full")(size, value, dtype=dtype or self.dtype, device=device,
                                  requires_grad=requires_grad)


def new_empty_strided(self: Any, size: Any, stride: Any, dtype: Any = None, device: Any = None,
                      requires_grad: bool = False, layout: Any = None,
                      pin_memory: bool = False) -> Any:
    """``x.new_empty_strided(size, stride)``: ``empty_strided`` of ``x``'s dtype and engine."""
    return _factory(self, "empty_strided")(size, stride, dtype=dtype or self.dtype,
                                           device=device, requires_grad=requires_grad)


def new_tensor(self: Any, data: Any, dtype: Any = None, device: Any = None,
               requires_grad: bool = False) -> Any:
    return _factory(self, "tensor")(data, dtype=dtype or self.dtype, device=device,
                                    requires_grad=requires_grad)


def _is_view(self: Any) -> bool:
    return registry_for(backend_of(self)).get(self) is not None


def _base(self: Any) -> Any:
    return getattr(registry_for(backend_of(self)).get(self), "base", None)


# ---- operators --------------------------------------------------------------------------------

def _forward(name: str) -> Callable[[Any, Any], Any]:
    f = getattr(fn, name)

    def forward(self: Any, other: Any) -> Any:
        if other is None:
            return NotImplemented
        return f(self, other)

    forward.__name__ = f"__{name}__"
    return forward


def _reflected(name: str) -> Callable[[Any, Any], Any]:
    f = getattr(fn, name)

    def reflected(self: Any, other: Any) -> Any:
        if not is_tensor(self):  # Tensor.__radd__(2, t): the descriptor check of torch's
            raise TypeError(f"descriptor '__r{name}__' for 'Tensor' objects doesn't apply to a "
                            f"'{type(self).__name__}' object")
        return f(as_tensor(other, self), self)

    reflected.__name__ = f"__r{name}__"
    return reflected


# The arithmetic operators in Python; the backend may install faster ones in their place
# (``backend.operators``), handing them these for what they do not cover.
ARITHMETIC: Dict[str, Any] = {"__neg__": fn.neg}
for _op, _name in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("truediv", "div"),
                   ("matmul", "matmul")):
    ARITHMETIC[f"__{_op}__"] = _forward(_name)
    ARITHMETIC[f"__r{_op}__"] = _reflected(_name)


def __rsub__(self: Any, other: Any) -> Any:
    """``other - self``; for a number ``other`` and a floating ``self``, torch's rsub: one
    RsubBackward1 node with the tensor as its only edge."""
    if type(other) in (int, float) and self.dtype.is_floating_point:
        return backend_of(self).ops.rsub_scalar(self, float(other))
    return fn.sub(as_tensor(other, self), self)


ARITHMETIC["__rsub__"] = __rsub__


def __rtruediv__(self: Any, other: Any) -> Any:
    """``other / self``; for a number ``other`` and a floating ``self``, torch's
    ``self.reciprocal() * other``: the same rounding (``1.1 / half`` included) and the same
    node (MulBackward0)."""
    if type(other) in (int, float) and is_floating_or_complex(self.dtype):
        return fn.mul(fn.reciprocal(self), other)
    return fn.div(as_tensor(other, self), self)


ARITHMETIC["__rtruediv__"] = __rtruediv__

_COMPARABLE = (int, float, bool, np.number, np.ndarray, list)


def __eq__(self: Any, other: Any) -> Any:
    if other is None or not (is_tensor(other) or isinstance(other, _COMPARABLE)):
        return False
    return fn.eq(self, other)


def __ne__(self: Any, other: Any) -> Any:
    if other is None or not (is_tensor(other) or isinstance(other, _COMPARABLE)):
        return True
    return fn.ne(self, other)


def __hash__(self: Any) -> int:
    return id(self)


def __pos__(self: Any) -> Any:
    return self


def __pow__(self: Any, e: Any) -> Any:
    return fn.pow(self, e)


def __rpow__(self: Any, base: Any) -> Any:
    if is_tensor(base):  # a 0-d tensor base promotes as a tensor (int ** int stays int)
        return fn.pow(base, self)
    return backend_of(self).ops.pow(scalar(self, base), self)


def __rfloordiv__(self: Any, o: Any) -> Any:
    return fn.floor_divide(as_tensor(o, self), self)


def __rmod__(self: Any, o: Any) -> Any:
    return fn.remainder(as_tensor(o, self), self)


def __bool__(self: Any) -> bool:
    n = math.prod(self.shape)
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(self.item())


def __float__(self: Any) -> float:
    return builtins.float(self.item())


def __int__(self: Any) -> int:
    return builtins.int(self.item())


def __index__(self: Any) -> int:
    if self.dtype.kind not in "iub" or math.prod(self.shape) != 1:
        raise TypeError("only integer tensors of a single element can be converted to an "
                        "index")
    return builtins.int(self.item())


def __len__(self: Any) -> int:
    if self.ndim == 0:
        raise TypeError("len() of a 0-d tensor")
    return self.shape[0]


def __iter__(self: Any) -> Any:
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (getitem(self, i) for i in range(self.shape[0]))


def __format__(self: Any, spec: str) -> str:
    """As torch: a 0-d plain tensor formats as its number (``f"{loss}"`` prints ``0.5``, and
    ``f"{loss:.3f}"`` works); anything else is ``object.__format__`` (its str for an empty spec,
    a TypeError for any other)."""
    plain = type(self) is backend_of(self).Tensor  # not a subclass such as Parameter
    if self.ndim == 0 and plain:
        return builtins.format(self.detach().item(), spec)
    if spec:
        raise TypeError("unsupported format string passed to Tensor.__format__")
    return str(self)


def __contains__(self: Any, element: Any) -> bool:
    """``element in t``: whether any entry equals ``element`` (a tensor broadcast against t, or
    a number), as torch."""
    if not (is_tensor(element) or isinstance(element, (builtins.int, builtins.float,
                                                        builtins.complex, np.number))):
        raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed "
                           f"in a {builtins.type(element)}.")
    return builtins.bool((self == element).any().item())


# ---- in-place (Note [In-place ops] in inplace.py) ---------------------------------------------

def _inplace_binary(name: str) -> Callable[..., Any]:
    f = getattr(fn, name)

    def method(self: Any, other: Any, *args: Any, **kwargs: Any) -> Any:
        return run_inplace(self, lambda x: f(x, other, *args, **kwargs), (other,), name)

    method.__name__ = f"{name}_"
    return method


def _inplace_unary(name: str) -> Callable[..., Any]:
    f = getattr(fn, name)

    def method(self: Any) -> Any:
        return run_inplace(self, f, (), name)

    method.__name__ = f"{name}_"
    return method


# x.NAME_() for these unary formulas; whether it may run while recording is the translator's
# verdict (translator/inplace.py, Note [In-place variants]).
UNARY_INPLACE = ("neg", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "reciprocal", "sin",
                 "cos", "tan", "tanh", "sigmoid", "relu", "abs", "sign", "erf")
BINARY_INPLACE = ("add", "sub", "mul", "div", "pow", "maximum", "minimum")


def polygamma(self: Any, n: int) -> Any:
    """``x.polygamma(n)`` is ``polygamma(n, x)`` (torch's order)."""
    return pfn.polygamma(n, self)


def _inplace_of(f: Callable[..., Any], formula: Optional[str]) -> Callable[..., Any]:
    """``x.NAME_(*args)``: ``f(x, *args)`` written into x, under ``formula``'s verdict (None:
    unknown, run on a copy)."""

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        operands = tuple(a for a in (*args, *kwargs.values()) if is_tensor(a))
        return run_inplace(self, lambda x: f(x, *args, **kwargs), operands,
                           "?" if formula is None else formula)

    method.__name__ = f"{f.__name__}_"
    return method


# x.NAME_() for the derivative-table functions torch has in place: (method, function, the
# formula whose in-place verdict applies; None when the function composes several, or picks
# a formula by its arguments: then the op runs on a copy, which is always safe).
# asinh_/acosh_/atanh_ read their input in backward (an "unsafe" verdict): torch has no
# gradient for them at all (derivatives.yaml: not_implemented), here they run on a copy, which
# the node saves, so they work while recording.
TABLE_INPLACE = (
    *((n, getattr(pfn, n), n) for n in (
        "sinh", "cosh", "asin", "acos", "atan", "exp2", "sgn",
        "erfc", "erfinv", "lgamma", "digamma", "logit", "nan_to_num", "atan2", "hypot",
        "xlogy", "addcmul", "addcdiv")),
    *((n, getattr(pfn, n), None) for n in ("asinh", "acosh", "atanh")),
    *((a, getattr(pfn, n), None) for a, n in (
        ("arcsinh", "asinh"), ("arccosh", "acosh"), ("arctanh", "atanh"))),
    *((a, getattr(pfn, n), n) for a, n in (
        ("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan"), ("arctan2", "atan2"))),
    ("lerp", pfn.lerp, None), ("polygamma", polygamma, None),
    *((n, getattr(pfn, n), None) for n in ("clamp_min", "clamp_max", "deg2rad", "rad2deg",
                                           "frac")),
    *((n, getattr(cfn, n), None) for n in ("copysign", "ldexp", "renorm", "put",
                                           "index_put", "sinc", "i0", "nextafter")),
    ("fmod", fn.fmod, "fmod"), ("remainder", fn.remainder, "remainder"),
    ("floor_divide", fn.floor_divide, "div_floor"), ("trunc", fn.trunc, "trunc"),
    ("fix", fn.trunc, "trunc"), ("floor", fn.floor, None), ("ceil", fn.ceil, None),
    ("round", fn.round, None), ("divide", fn.div, None), ("true_divide", fn.div, None),
    ("cumprod", rfn.cumprod, "cumprod"),
    *((n, getattr(lfn, n), n) for n in ("addmm", "baddbmm", "addbmm", "addmv", "addr")),
    ("index_fill", sfn.index_fill, None), ("index_copy", sfn.index_copy, "index_copy"),
    ("scatter", sfn.scatter, None), ("scatter_reduce", sfn.scatter_reduce, None),
    ("index_reduce", sfn.index_reduce, None),
    ("masked_scatter", sfn.masked_scatter, "masked_scatter"),
    ("masked_fill", xfn.masked_fill, None),
    ("index_add", fn.index_add, None), ("scatter_add", fn.scatter_add, "scatter_add"),
    ("square", fn.square, None), ("log2", fn.log2, None), ("log10", fn.log10, None),
    ("tril", xfn.tril, None), ("triu", xfn.triu, None), ("negative", fn.neg, None),
    ("absolute", fn.abs, None), ("multiply", fn.mul, None), ("subtract", fn.sub, None),
)


def clamp_(self: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A002
    return run_inplace(self, lambda x: fn.clamp(x, min, max), (min, max), "clamp")


def copy_(self: Any, src: Any) -> Any:
    src = as_tensor(src, self)

    def compute(x: Any) -> Any:
        return fn.expand(fn.cast(src, self.dtype), tuple(self.shape))

    return run_inplace(self, compute, (src,), None)


def _overwritten(x: Any, value: Any) -> Any:
    """``value`` (broadcast) in place of ``x``, keeping ``x`` in the graph with a zero gradient,
    as torch's fill_/zero_/comparison_ (``zeros_like(grad)``): the result requires grad when x
    does, and its value never depends on x's (no ``x * 0``: inf and NaN would leak)."""
    keep = _factory(x, "zeros")(*x.shape, dtype=np.dtype(bool))
    return fn.where(keep, x, fn.expand(fn.cast(as_tensor(value, x), x.dtype), tuple(x.shape)))


def zero_(self: Any) -> Any:
    return run_inplace(self, lambda x: _overwritten(x, 0), (), None)


def fill_(self: Any, value: Any) -> Any:
    return run_inplace(self, lambda x: _overwritten(x, value), (value,), None)


def _inplace_compare(name: str) -> Callable[..., Any]:
    """``x.ge_(other)``: x becomes 1 where ``x >= other`` and 0 elsewhere, in x's dtype, with
    a zero gradient for x (and for a tensor ``other``), as torch's ge_."""
    compare = getattr(fn, name)

    def method(self: Any, other: Any) -> Any:
        return run_inplace(self, lambda x: _overwritten(x, compare(x.detach(), other)),
                           (other,), None)

    method.__name__ = f"{name}_"
    return method


# ---- in-place sampling (the engine's generator; Note [The same numbers as torch]) ------------

def _fill_draws(self: Any, draws: np.ndarray) -> Any:
    """Write ``draws`` (a flat array) into ``self`` in place, as an in-place op whose gradient
    to the old value is zero (torch's for every sampler)."""
    B = backend_of(self)
    return copy_(self, B.from_numpy(np.asarray(draws.reshape(tuple(self.shape)), order="C")))


def _float_only(self: Any, op: str) -> None:
    if not self.is_floating_point():
        raise RuntimeError(f'"{op}_cpu" not implemented for \'{_torch_dtype_name(self)}\'')


def _torch_dtype_name(t: Any) -> str:
    return _TORCH_NAMES.get(t.dtype.name, t.dtype.name)


def _generator(self: Any, generator: Any) -> Any:
    return _factory(self, "_gen")(generator)


def uniform_(self: Any, *args: Any, generator: Any = None, **kw: Any) -> Any:
    """Fill with uniform draws in ``[from, to)`` (``uniform_(from=0, to=1)``)."""
    a, b = _bounds(args, kw, ("from", "to"), (0.0, 1.0))
    _float_only(self, "uniform")
    if not a <= b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={a} > to={b}")
    d = self.dtype.dtype
    return _fill_draws(self, _generator(self, generator).uniform(self.numel, d, a, b))


def normal_(self: Any, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Any:
    """Fill with normal draws of the given ``mean`` and ``std``."""
    _float_only(self, "normal_kernel")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    d = self.dtype.dtype
    return _fill_draws(self, _generator(self, generator).normal(self.numel, d, mean, std))


def bernoulli_(self: Any, p: Any = 0.5, *, generator: Any = None) -> Any:
    """Fill with 0/1 draws, 1 with probability ``p`` (a number or a tensor of ``self``'s shape)."""
    if is_tensor(p):
        drawn = _factory(self, "bernoulli")(fn.expand(p, tuple(self.shape)), generator=generator)
    else:
        drawn = _factory(self, "bernoulli")(self, float(p), generator=generator)
    return copy_(self, drawn)


def bernoulli(self: Any, p: Any = None, *, generator: Any = None) -> Any:
    return _factory(self, "bernoulli")(self, p, generator=generator)


def multinomial(self: Any, num_samples: int, replacement: bool = False, *,
                generator: Any = None) -> Any:
    return _factory(self, "multinomial")(self, num_samples, replacement, generator=generator)


def exponential_(self: Any, lambd: float = 1.0, *, generator: Any = None) -> Any:
    """Fill with exponential draws of rate ``lambd``."""
    _float_only(self, "exponential")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    u = _generator(self, generator).uniform64(self.numel)
    return _fill_draws(self, -np.log1p(-u) / lambd)


def cauchy_(self: Any, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Any:
    """Fill with Cauchy draws."""
    _float_only(self, "cauchy")
    u = _generator(self, generator).uniform64(self.numel)
    return _fill_draws(self, median + sigma * np.tan(math.pi * (u - 0.5)))


def log_normal_(self: Any, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Any:
    """Fill with draws whose logarithm is normal with ``mean`` and ``std``."""
    _float_only(self, "log_normal")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    z = _generator(self, generator).normal_serial(self.numel)
    return _fill_draws(self, np.exp(z * std + mean))


def geometric_(self: Any, p: float, *, generator: Any = None) -> Any:
    """Fill with the number of Bernoulli(p) trials up to the first success."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    u = _generator(self, generator).uniform64(self.numel)
    return _fill_draws(self, np.ceil(np.log(u) / math.log1p(-p)))


def random_(self: Any, *args: Any, generator: Any = None, **kw: Any) -> Any:
    """Fill with integers from ``[from, to)``: ``random_()`` (0 to the dtype's largest exactly
    representable integer), ``random_(to)``, ``random_(from, to)``."""
    g = _generator(self, generator)
    d = self.dtype.name
    if not args and not kw:
        top = {"float32": 2**24 + 1, "float64": 2**53 + 1, "int64": 2**63, "bool": 2}[d]
        words = g._words32(self.numel) if top < 2**32 else g._words64(self.numel)
        return _fill_draws(self, (words % np.uint64(top)).astype(np.int64))
    low, high = _bounds(args, kw, ("from", "to"), (0, None))
    if high is None:
        low, high = 0, low
    return _fill_draws(self, g.integers(self.numel, int(low), int(high)))


def _bounds(args: tuple, kw: Dict[str, Any], names: tuple, defaults: tuple) -> tuple:
    vals = list(defaults)
    for i, v in enumerate(args):
        vals[i] = v
    for k, v in kw.items():
        if k not in names:
            raise TypeError(f"got an unexpected keyword argument '{k}'")
        vals[names.index(k)] = v
    return tuple(vals)


# ---- copying and pickling (leaves only, as PyTorch) ------------------------------------------

def __deepcopy__(self: Any, memo: Dict[int, Any]) -> Any:
    if not self.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                           "support the deepcopy protocol at the moment")
    B = backend_of(self)
    t = B.from_numpy(np.array(self.detach(), copy=True))
    if self.requires_grad:
        t.requires_grad_(True)
    if self.grad is not None:
        t.grad = B.from_numpy(np.array(self.grad.detach(), copy=True))
    memo[id(self)] = t
    return t


def __reduce_ex__(self: Any, protocol: int) -> Any:
    return (_rebuild, (backend_of(self).name, np.array(self.detach(), copy=True),
                       builtins.bool(self.requires_grad)))


def _rebuild(engine: str, array: np.ndarray, requires_grad: bool) -> Any:
    """Unpickle a tensor: ``engine`` is the module name of the engine that pickled it."""
    t = backend_named(engine).from_numpy(array)
    return t.requires_grad_(True) if requires_grad else t


# ---- the table --------------------------------------------------------------------------------

METHODS: Dict[str, Any] = {
    **{name: getattr(fn, name) for name in FUNCTION_METHODS},
    **{name: getattr(xfn, name) for name in EXTRA_FUNCTION_METHODS},
    **{name: getattr(module, name) for module, names in TABLE_METHODS.items() for name in names},
    "polygamma": polygamma,
    "view": view, "where": where, "flip": flip, "T": property(_T), "mT": property(_mT),
    "view_as": view_as, "reshape_as": view_as, "expand_as": expand_as,
    "sum_to_size": sum_to_size,
    "numel": property(_numel), "nelement": nelement, "dim": dim, "size": size,
    "data": property(_data, _set_data, _del_data), "detach_": detach_, "new": new,
    "device": property(lambda self: CPU),
    "is_cuda": property(lambda self: False), "cpu": cpu, "cuda": cuda,
    "is_floating_point": is_floating_point, "element_size": element_size,
    "itemsize": property(element_size),
    "nbytes": property(lambda self: element_size(self) * math.prod(self.shape)),
    "ndimension": ndimension, "get_device": get_device, "is_signed": is_signed,
    "new_empty": new_zeros, "tolist": tolist, "to": to, "type": type_,
    "type_as": type_as, "float": float_, "double": double, "long": long, "bool": bool_,
    "half": half, "bfloat16": bfloat16, "int": int_, "short": short, "char": char, "byte": byte,
    "new_zeros": new_zeros, "new_ones": new_ones, "new_full": new_full,
    "new_empty_strided": new_empty_strided,
    "new_tensor": new_tensor,
    "__dlpack__": dlpack.__dlpack__, "__dlpack_device__": dlpack.__dlpack_device__,
    **{f"__{op}__": _forward(op) for op in ("lt", "le", "gt", "ge")},
    "__eq__": __eq__, "__ne__": __ne__, "__hash__": __hash__, "__pos__": __pos__,
    "__abs__": fn.abs, "__pow__": __pow__, "__rpow__": __rpow__,
    "__floordiv__": fn.floor_divide, "__rfloordiv__": __rfloordiv__,
    "__mod__": fn.remainder, "__rmod__": __rmod__, "__invert__": fn.bitwise_not,
    "__and__": fn.bitwise_and, "__or__": fn.bitwise_or, "__xor__": fn.bitwise_xor,
    "__rand__": fn.bitwise_and, "__ror__": fn.bitwise_or, "__rxor__": fn.bitwise_xor,
    "__array_ufunc__": None,  # numpy defers to our reflected operators
    "__array_priority__": 1000,
    "__bool__": __bool__, "__float__": __float__, "__int__": __int__, "__index__": __index__,
    "__len__": __len__, "__iter__": __iter__, "__getitem__": getitem,
    "__setitem__": setitem, "__repr__": tensor_repr, "__str__": tensor_repr,
    "__format__": __format__, "__contains__": __contains__,
    **{f"{name}_": _inplace_binary(name) for name in BINARY_INPLACE},
    **{f"__i{op}__": _inplace_binary(name) for op, name in (
        ("add", "add"), ("sub", "sub"), ("mul", "mul"), ("truediv", "div"), ("pow", "pow"))},
    **{f"{name}_": _inplace_unary(name) for name in UNARY_INPLACE},
    **{f"{name}_": _inplace_of(f, formula) for name, f, formula in TABLE_INPLACE},
    "clamp_": clamp_, "clip_": clamp_, "copy_": copy_, "zero_": zero_, "fill_": fill_,
    "uniform_": uniform_, "normal_": normal_, "bernoulli_": bernoulli_, "bernoulli": bernoulli,
    "multinomial": multinomial, "exponential_": exponential_, "cauchy_": cauchy_,
    "log_normal_": log_normal_, "geometric_": geometric_, "random_": random_,
    **{f"{name}_": _inplace_compare(name) for name in ("eq", "ne", "lt", "le", "gt", "ge")},
    # torch's long names of the same, and the logical ops, which overwrite x the same way
    **{f"{alias}_": _inplace_compare(name) for alias, name in (
        ("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"), ("less_equal", "le"),
        ("not_equal", "ne"), ("logical_and", "logical_and"), ("logical_or", "logical_or"),
        ("logical_xor", "logical_xor"))},
    "logical_not_": lambda self: _inplace_compare("eq")(self, 0),  # not x: x == 0
    "cumsum_": _inplace_of(xfn.cumsum, None),
    "__deepcopy__": __deepcopy__, "__reduce_ex__": __reduce_ex__,
    **inplace_shape.METHODS,
    **everyday_names.METHODS,
    **memory_formats.METHODS,
}


def install(B: Backend, factories: Any) -> None:
    """Set ``METHODS`` and the operators of ``B.operators(ARITHMETIC)`` on ``B.Tensor``, once."""
    _FACTORIES[B.name] = factories
    T = B.Tensor
    for name, value in METHODS.items():
        setattr(T, name, value)
    if not hasattr(T, "_is_view"):  # the compiled engine: views are known from the registry
        setattr(T, "_is_view", property(_is_view))  # noqa: B010
        setattr(T, "_base", property(_base))  # noqa: B010
    for name, value in B.operators(ARITHMETIC).items():
        setattr(T, name, value)
