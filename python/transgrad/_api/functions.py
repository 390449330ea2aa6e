"""PyTorch-style functions over a backend's ``ops``: ``sum(x, dim=None, keepdim=False)``,
``cat(tensors, dim=0)``, ``softmax(x, dim)``, ``where``, ``clamp``, ``matmul``, ...

Input: tensors of either engine. Output: the module-level functions of ``__all__``, exported by
both engines' namespaces and reused as Tensor methods (methods.py). Each function finds the
engine of its tensor argument (``backend_of``: Note [One API, two engines] in
transgrad/_backend.py), normalises PyTorch-style arguments (an int or a tuple of dims, ``-1`` in
shapes, Python numbers) and calls one or a few of that engine's formulas; nothing is inspected
per call beyond what the arguments themselves require. View functions register their results
(``track_view``, Note [In-place on views] in views.py).

Note [Rounding keeps the graph]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's ``floor``/``ceil``/``round``/``trunc`` (and ``div`` with a rounding mode) are
differentiable with a zero gradient: their result requires grad when the input does. ``trunc``,
``div_trunc`` and ``div_floor`` are formulas; ``floor``, ``ceil`` and ``round`` are ``trunc(x)``
plus the constant difference to the wanted rounding (computed on the data; 0 where x is not
finite, so inf and NaN come out as torch's). Integer tensors are returned as a copy, as torch.

Note [The engine of a tensor without a frame]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's ``out=`` is keyword-only (Note [out= in the function's own signature] in out_args.py),
and CPython 3.11 specializes no call to a function with keyword-only parameters: tg.sin's call
costs ~30 ns more than a plain ``def sin(x)`` (measured in one process, 296 vs 327 ns). The
per-op functions of the hot path win some of it back: the unary pass-throughs find the engine
with ``_engine_of_type(type(x))`` (``_backend.backend_of_type``: the bound ``get`` of the dict
``backend_of`` reads, no Python frame) and call ``backend_of`` only when that misses (a
subclass such as a Parameter, or no tensor: its error), 327 -> 311 ns; ``_binary`` and ``add``
do the same and skip ``as_tensor`` when both operands are tensors of one engine type, which is
all ``as_tensor`` would find.

Scalars follow docs/ARCHITECTURE.md: a Python number meeting tensor ``t`` becomes a 0-d tensor of
``t``'s dtype when ``t`` is floating; for int64/bool ``t``, int64 (int) or float64 (float).
"""

from __future__ import annotations

import builtins
import math
import numbers
from typing import Any, Dict, Optional, Sequence

import numpy as np

from transgrad import return_types
from transgrad._api import dtype_checks
from transgrad._api import out_args as _out_args
from transgrad._api.factories import _check_fits
from transgrad._api.settings import contiguous_format
from transgrad._api.views import int_list, offset_in_storage, track_view, track_views
from transgrad._backend import backend_of, backend_of_type, find_backend, is_tensor
from transgrad._dtypes import (
    as_dtype,
    bool_,
    is_floating,
    is_floating_or_complex,
    is_integral,
    result_type,
    scalar_dtype,
)
from transgrad._errors import ArgumentError

# The public functions (both engines export them: transgrad/_compiled.py, reference/__init__.py).
__all__ = [
    "abs", "absolute", "add", "all", "allclose", "amax", "amin", "any", "argmax", "argmin",
    "as_strided",
    "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "broadcast_tensors",
    "broadcast_to", "cast", "cat", "ceil", "chunk", "clamp", "clip",
    "clone", "concat", "concatenate", "contiguous", "cos", "diagonal", "diagonal_scatter",
    "div", "divide", "dot", "eq", "equal", "erf", "exp", "expand", "expm1", "fix", "flatten",
    "floor", "floor_divide", "fmod", "gather", "ge", "greater", "gt", "index_add",
    "index_select", "isfinite", "isinf", "isnan", "le", "less", "log", "log10", "log1p", "log2",
    "log_softmax", "logical_and", "logical_not", "logical_or", "logical_xor", "logsumexp", "lt",
    "matmul", "max", "maximum", "mean", "min", "minimum", "mm", "movedim", "mul", "multiply",
    "narrow", "ne", "neg", "negative", "norm", "outer", "permute", "pow", "reciprocal", "relu",
    "remainder", "reshape", "round", "rsqrt", "scatter_add", "select", "select_scatter",
    "sigmoid", "sign", "sin", "slice_scatter", "softmax", "split", "split_with_sizes", "sqrt",
    "square", "squeeze",
    "stack", "std", "std_mean", "sub", "subtract", "sum", "swapaxes", "t", "tan", "tanh",
    "transpose", "true_divide", "trunc", "unbind", "unflatten", "unsqueeze", "var", "var_mean",
    "where",
]
_F64, _I64 = np.dtype("float64"), np.dtype("int64")
# the engine of exactly this tensor type, or None (Note [The engine of a tensor without a frame])
_engine_of_type = backend_of_type


def wrap_dim(dim: int, ndim: int) -> int:
    n = builtins.max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def dims_arg(dim: Any, ndim: int) -> tuple:
    """``dim`` as a tuple of dims: None -> all, int -> (int,); each checked against ``ndim``
    and named once, with torch's errors (the dims themselves are passed on as given)."""
    if dim is None:
        return tuple(range(ndim))
    dims = (int(dim),) if isinstance(dim, (int, np.integer)) else tuple(int(d) for d in dim)
    seen: set = set()
    for d in dims:
        w = wrap_dim(d, ndim)
        if w in seen:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen.add(w)
    return dims


def shape_arg(shape: Sequence[Any]) -> tuple:
    """``reshape(2, 3)`` and ``reshape((2, 3))`` alike."""
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def infer_shape(shape: tuple, numel: int) -> tuple:
    """Resolve one ``-1`` entry of a target shape, with torch's errors (at::infer_size)."""
    if -1 not in shape:
        return shape
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for i, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
    known = math.prod(s for s in shape if s != -1)
    if known == 0 and numel == 0:
        raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} "
                           "because the unspecified dimension size -1 can be any value and is "
                           "ambiguous")
    if known == 0 or numel % known:
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


# ---- the engine of the arguments, and Python numbers next to tensors -------------------------

def _ops_of_pair(x: Any, other: Any) -> Any:
    """The formulas of the engine of ``x``, or of ``other`` when ``x`` is a number."""
    return backend_of(x if is_tensor(x) else other).ops


def _ops_of_seq(tensors: Sequence[Any]) -> Any:
    backend = find_backend(tensors)
    if backend is None:
        raise TypeError("expected a non-empty sequence of Tensors")
    return backend.ops


def scalar(like: Any, value: Any) -> Any:
    """The Python number ``value`` as the wrapped number (a 0-d tensor of the lowest promotion
    tier) next to tensor ``like`` (Note [Type promotion] in transgrad/_dtypes.py)."""
    backend = backend_of(like)
    d = scalar_dtype(value, like.dtype, backend.default_dtype)
    return backend.wrapped_number(np.array(value, dtype=d.dtype))


def as_tensor(value: Any, like: Any) -> Any:
    """``value`` (a tensor, a number, an array-like) as a tensor of ``like``'s engine."""
    if is_tensor(value):
        return value
    if type(value) is float or type(value) is int:  # the common case, without abc checks
        return scalar(like, value)
    if isinstance(value, (numbers.Number, np.bool_)):
        return scalar(like, value)
    a = np.asarray(value)
    if a.dtype.kind == "f" and is_floating(like.dtype):
        a = a.astype(like.dtype)
    elif a.dtype.kind in "iu":
        a = a.astype(_I64)
    return backend_of(like).from_numpy(np.asarray(a, order="C"))


# Note [Tensor-only operands]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch's Python binding decides what a binary function takes: ``maximum``, ``atan2``,
# ``logical_and``, ``gcd`` ... have only (Tensor input, Tensor other), so a Python number in
# either place is its TypeError ("argument 'other' (position 2) must be Tensor, not int");
# ``eq``, ``fmod``, ``bitwise_and``, ``copysign``, ``rsub`` ... also have (Tensor input, Number
# other), so only a number first is refused ("received an invalid combination of arguments").
# transgrad's functions refuse the same (check_tensors / check_tensor_first), in _binary's slow
# path where they go through it (two tensors of one type do not pay for the check; elsewhere
# one isinstance). A Tensor method (x.maximum(2)) goes through the same function, as torch's
# refuses it too; the operators (x == 2, 2 + x) take numbers, as torch's.


def check_tensors(name: str, input: Any, other: Any, second: str = "other") -> None:
    """torch's TypeError where its signature takes Tensors only (Note [Tensor-only operands])."""
    for pos, (arg, v) in enumerate((("input", input), (second, other)), 1):
        if not is_tensor(v):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(v).__name__}")


def check_tensor_first(name: str, input: Any, other: Any) -> None:
    """torch's TypeError for a number first where it takes (Tensor, Tensor) or (Tensor, Number)
    (Note [Tensor-only operands])."""
    if not is_tensor(input):
        got = ", ".join("Tensor" if is_tensor(v) else type(v).__name__ for v in (input, other))
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                        "but expected one of: (Tensor input, Tensor other), (Tensor input, "
                        "Number other)")


def _binary(name: str, x: Any, other: Any, refuse: int = 0) -> Any:
    """Formula ``name`` on two operands, one of which may be a Python number; ``refuse`` 1: not
    a number first, 2: no number (torch's TypeErrors, Note [Tensor-only operands]), checked
    off the fast path."""
    if type(other) is type(x):  # two tensors of one engine: no conversion, no further frame
        B = _engine_of_type(type(x))
        if B is not None:
            return getattr(B.ops, name)(x, other)
    if refuse == 2:
        check_tensors(name, x, other)
    if not is_tensor(x):
        if refuse:
            check_tensor_first(name, x, other)
        x = as_tensor(x, other)
    return getattr(backend_of(x).ops, name)(x, as_tensor(other, x))


# ---- elementwise --------------------------------------------------------------------------

def neg(x: Any, *, out: Any = None) -> Any:
    """``-x``"""
    if out is not None:
        return _out_args.write_out("neg", neg, (x,), {}, out)
    return (_engine_of_type(type(x)) or backend_of(x)).ops.neg(x)


def exp(x: Any, *, out: Any = None) -> Any:
    """``e ** x``"""
    if out is not None:
        return _out_args.write_out("exp", exp, (x,), {}, out)
    return (_engine_of_type(type(x)) or backend_of(x)).ops.exp(x)


def log(x: Any, *, out: Any = None) -> Any:
    """The natural logarithm."""
    if out is not None:
        return _out_args.write_out("log", log, (x,), {}, out)
    return (_engine_of_type(type(x)) or backend_of(x)).ops.log(x)


def log1p(x: Any, *, out: Any = None) -> Any:
    """``log(1 + x)``, accurate near 0."""
    if out is not None:
        return _out_args.write_out("log1p", log1p, (x,), {}, out)
    return (_engine_of_type(type(x)) or backend_of(x)).ops.log1p(x)


def expm1(x: Any, *, out: Any = None) -> Any:
    """``exp(x) - 1``, accurate near 0."""
    if out is not None:
        return _out_args.write_out("expm1", expm1, (x,), {}, out)
    return (_engine_of_type(type(x)) or backend_of(x)).ops.expm1(x)


def sqrt(x: Any, *, out: Any = None) -> Any:
    """The square root."""
    if out is not None:
        return _out_args.write_out("sqrt", sqrt, (x,), {}, out)
    return (_engine_of_type(type(x)) or backend_of(x)).ops.sqrt(x)


def rsqrt(x: Any, *, out: Any = None) -> Any:
    """``1 / sqrt(x)``."""
    if out is not None:
        return _out_args.write_out("rsqrt", rsqrt, (x,), {}, out)
    return (_engine_of_type(type(x)) or backend_of(x)).ops.rsqrt(x)


def reciprocal(x: Any, *, out: Any = None) -> Any:
    """``1 / x``."""
    if out is not None:
        return _out_args.write_out("reciprocal", reciprocal, (x,), {}, out)
    return (_engine_of_type(type(x)) or backend_of(x)).ops.reciprocal(x)


def sin(x: Any, *, out: Any = None) -> Any:
    """The sine."""
    if out is not None:
        return _out_args.write_out("sin", sin, (x,), {}, out)
    return (_engine_of_type(type(x)) or backend_of(x)).ops.sin(x)


def cos(x: Any, *, out: Any = None) -> Any:
    """The cosine."""
    if out is not None:
        return _out_args.write_out("cos", cos, (x,), {}, out)
    return (_engine_of_type(type(x)) or backend_of(x)).ops.cos(x)


def tan(x: Any, *, out: Any = None) -> Any:
    """The tangent."""
    if out is not None:
        return _out_args.write_out("tan", tan, (x,), {}, out)
    return (_engine_of_type(type(x)) or backend_of(x)).ops.tan(x)


def tanh(x: Any, *, out: Any = None) -> Any:
    """The hyperbolic tangent."""
    if out is not None:
        return _out_args.write_out("tanh", tanh, (x,), {}, out)
    return (_engine_of_type(type(x)) or backend_of(x)).ops.tanh(x)


def sigmoid(x: Any, *, out: Any = None) -> Any:
    """``1 / (1 + exp(-x))``."""
    if out is not None:
        return _out_args.write_out("sigmoid", sigmoid, (x,), {}, out)
    return (_engine_of_type(type(x)) or backend_of(x)).ops.sigmoid(x)


def relu(x: Any) -> Any:
    """``max(x, 0)``."""
    return (_engine_of_type(type(x)) or backend_of(x)).ops.relu(x)


def abs(x: Any, *, out: Any = None) -> Any:  # noqa: A001
    """The absolute value."""
    if out is not None:
        return _out_args.write_out("abs", abs, (x,), {}, out)
    return (_engine_of_type(type(x)) or backend_of(x)).ops.abs(x)


def sign(x: Any, *, out: Any = None) -> Any:
    """-1, 0 or 1 by the sign of x; a bool tensor is its own sign, as torch's."""
    if out is not None:
        return _out_args.write_out("sign", sign, (x,), {}, out)
    if x.dtype is bool_:
        return x.clone()
    return (_engine_of_type(type(x)) or backend_of(x)).ops.sign(x)


def erf(x: Any, *, out: Any = None) -> Any:
    """The error function."""
    if out is not None:
        return _out_args.write_out("erf", erf, (x,), {}, out)
    return (_engine_of_type(type(x)) or backend_of(x)).ops.erf(x)


def mul(x: Any, other: Any, *, out: Any = None) -> Any:
    """``x * other``."""
    if out is not None:
        return _out_args.write_out("mul", mul, (x, other), {}, out)
    return _binary("mul", x, other)


def maximum(x: Any, other: Any, *, out: Any = None) -> Any:
    """The elementwise maximum."""
    if out is not None:
        return _out_args.write_out("maximum", maximum, (x, other), {}, out)
    return _binary("maximum", x, other, 2)


def minimum(x: Any, other: Any, *, out: Any = None) -> Any:
    """The elementwise minimum."""
    if out is not None:
        return _out_args.write_out("minimum", minimum, (x, other), {}, out)
    return _binary("minimum", x, other, 2)


def eq(x: Any, other: Any, *, out: Any = None) -> Any:
    """``x == other`` (bool)."""
    if out is not None:
        return _out_args.write_out("eq", eq, (x, other), {}, out)
    return _binary("eq", x, other, 1)


def ne(x: Any, other: Any, *, out: Any = None) -> Any:
    """``x != other`` (bool)."""
    if out is not None:
        return _out_args.write_out("ne", ne, (x, other), {}, out)
    return _binary("ne", x, other, 1)


def lt(x: Any, other: Any, *, out: Any = None) -> Any:
    """``x < other`` (bool)."""
    if out is not None:
        return _out_args.write_out("lt", lt, (x, other), {}, out)
    return _binary("lt", x, other, 1)


def le(x: Any, other: Any, *, out: Any = None) -> Any:
    """``x <= other`` (bool)."""
    if out is not None:
        return _out_args.write_out("le", le, (x, other), {}, out)
    return _binary("le", x, other, 1)


def gt(x: Any, other: Any, *, out: Any = None) -> Any:
    """``x > other`` (bool)."""
    if out is not None:
        return _out_args.write_out("gt", gt, (x, other), {}, out)
    return _binary("gt", x, other, 1)


def ge(x: Any, other: Any, *, out: Any = None) -> Any:
    """``x >= other`` (bool)."""
    if out is not None:
        return _out_args.write_out("ge", ge, (x, other), {}, out)
    return _binary("ge", x, other, 1)


def add(x: Any, other: Any, alpha: Any = 1, *, out: Any = None) -> Any:
    """``x + alpha * other`` (broadcasting; Python numbers follow the scalar rule)."""
    if out is not None:
        return _out_args.write_out("add", add, (x, other, alpha), {}, out)
    if type(other) is type(x) and alpha == 1:  # two tensors of one engine (_binary's path)
        B = _engine_of_type(type(x))
        if B is not None:
            return B.ops.add(x, other)
    ops = _ops_of_pair(x, other)
    if alpha != 1:
        other = mul(as_tensor(other, x), alpha)
    if not is_tensor(x):
        x = as_tensor(x, other)
    return ops.add(x, as_tensor(other, x))


def sub(x: Any, other: Any, alpha: Any = 1, *, out: Any = None) -> Any:
    """``x - alpha * other``."""
    if out is not None:
        return _out_args.write_out("sub", sub, (x, other, alpha), {}, out)
    ops = _ops_of_pair(x, other)
    if alpha != 1:
        other = mul(as_tensor(other, x), alpha)
    if not is_tensor(x):
        x = as_tensor(x, other)
    return ops.sub(x, as_tensor(other, x))


def pow(x: Any, exponent: Any, *, out: Any = None) -> Any:  # noqa: A001
    """``x ** exponent``: a tensor exponent is differentiated too, a number is a constant."""
    if out is not None:
        return _out_args.write_out("pow", pow, (x, exponent), {}, out)
    ops = _ops_of_pair(x, exponent)
    if is_tensor(exponent):
        if not is_tensor(x):
            x = as_tensor(x, exponent)
        return ops.pow(x, exponent)
    if not is_floating_or_complex(x.dtype):  # int ** 2 stays int, int ** 0.5 is the default dtype
        if isinstance(exponent, (bool, np.bool_)) and x.dtype.name == "bool":
            # torch's pow(Tensor, Scalar) answers exponents 0 and 1 without the kernel, which has
            # no bool loop: x ** True is a copy of x, x ** False all True
            return ops.clone(x) if exponent else ops.eq(x, x)
        if (isinstance(exponent, (int, np.integer)) and not isinstance(exponent, bool)
                and exponent < 0 and x.dtype.name != "bool"):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return ops.pow(x, scalar(x, exponent))
    if x.dtype.itemsize == 2:  # float16/bfloat16: torch rounds the exponent to x's dtype first
        exponent = float(np.array(exponent, dtype=x.dtype.dtype))
    return ops.pow_scalar(x, float(exponent))


_NOT_GIVEN: Any = object()


def where(condition: Any, x: Any = _NOT_GIVEN, other: Any = _NOT_GIVEN, *,
          out: Any = None) -> Any:
    """``x`` where ``condition`` holds, else ``other`` (broadcasting); ``where(condition)``
    alone is ``nonzero(condition, as_tuple=True)``, as torch."""
    if out is not None:
        return _out_args.write_out("where", where, (condition, x, other), {}, out)
    if x is _NOT_GIVEN and other is _NOT_GIVEN:
        return condition.nonzero(as_tuple=True)  # the method: _api.counting imports this module
    if x is _NOT_GIVEN or other is _NOT_GIVEN:
        raise TypeError("where() received an invalid combination of arguments: expected "
                        "(Tensor condition) or (Tensor condition, input, other)")
    backend = find_backend((x, other, condition))
    if backend is None:
        raise TypeError("where(): expected a Tensor among condition, input and other")
    ops = backend.ops
    if not is_tensor(x) and not is_tensor(other):  # two numbers: torch's result_type of them
        d = result_type(x, other, default_float=backend.default_dtype)
        x = backend.wrapped_number(np.array(x, dtype=d.dtype))
    if not is_tensor(x):
        x = as_tensor(x, other)
    if not is_tensor(condition):
        condition = backend.from_numpy(np.asarray(condition, dtype=bool))
    return ops.where(condition, x, as_tensor(other, x))


def clamp(x: Any, min: Any = None, max: Any = None, *, out: Any = None) -> Any:  # noqa: A002
    """``x`` limited to [min, max] (either may be None, a number or a tensor)."""
    if out is not None:
        return _out_args.write_out("clamp", clamp, (x, min, max), {}, out)
    ops = backend_of(x).ops
    if is_tensor(min) or is_tensor(max):
        if min is not None:
            x = maximum(x, min)
        if max is not None:
            x = minimum(x, max)
        return x
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if not is_floating_or_complex(x.dtype):  # an integer tensor with a float bound: promoted
        d = result_type(x, *(b for b in (min, max) if b is not None),
                        default_float=backend_of(x).default_dtype)
        if d.name == "bool":
            raise NotImplementedError("\"clamp_min_scalar_cpu\" not implemented for 'Bool'")
        if d != x.dtype:
            x = ops.cast(x, d.name)
        if not is_floating_or_complex(d):  # integer bounds of an integer tensor
            min, max = (None if b is None else _integer_bound(b, d) for b in (min, max))
    return ops.clamp(x, None if min is None else float(min),
                     None if max is None else float(max))


def _integer_bound(bound: Any, d: Any) -> int:
    """A number bound of clamp converted to the integer dtype ``d`` as torch converts it: an
    overflow raises torch's error, a negative bound of an unsigned dtype wraps (uint8's
    clamp(min=-1) clamps at 255), by c10's overflows() (_api/factories.py, _check_fits)."""
    _check_fits(bound, d.dtype)
    return int(np.array(int(bound), dtype=np.int64).astype(d.dtype))


def square(x: Any, *, out: Any = None) -> Any:
    """``x * x`` (a bool tensor's square is int64, as torch's ``pow(x, 2)``)."""
    if out is not None:
        return _out_args.write_out("square", square, (x,), {}, out)
    ops = backend_of(x).ops
    if x.dtype.name == "bool":
        x = ops.cast(x, "int64")
    return ops.mul(x, x)


def log2(x: Any, *, out: Any = None) -> Any:
    """The base-2 logarithm."""
    if out is not None:
        return _out_args.write_out("log2", log2, (x,), {}, out)
    ops = backend_of(x).ops
    return mul(ops.log(x), 1.0 / math.log(2.0))


def log10(x: Any, *, out: Any = None) -> Any:
    """The base-10 logarithm."""
    if out is not None:
        return _out_args.write_out("log10", log10, (x,), {}, out)
    ops = backend_of(x).ops
    return mul(ops.log(x), 1.0 / math.log(10.0))


def cast(x: Any, dtype: Any) -> Any:
    """``x`` as ``dtype`` (``x`` itself when it already is); differentiable for floating dtypes."""
    ops = backend_of(x).ops
    d = as_dtype(dtype)
    return x if x.dtype == d else ops.cast(x, d.name)

# -- reductions ------------------------------------------------------------------------


def sum(x: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None,  # noqa: A001
        *, out: Any = None, **numpy_kw: Any) -> Any:
    """The sum over ``dim`` (all elements by default), optionally keeping reduced dims; numpy's
    ``axis``/``keepdims`` work too."""
    if out is not None:
        return _out_args.write_out("sum", sum, (x, dim, keepdim, dtype), numpy_kw, out)
    ops = backend_of(x).ops
    dim, keepdim = _numpy_args(dim, keepdim, numpy_kw)
    dims = None if dim is None else dims_arg(dim, x.ndim)
    # dim None stays None: torch's node for sum() is SumBackward0, for sum(dim) SumBackward1
    if dtype is not None:  # torch sums in ``dtype`` (an int8 sum wraps in int8)
        return cast(ops.sum(cast(x, dtype), dims, keepdim), dtype)
    return ops.sum(x, dims, keepdim)


def mean(x: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None,
         *, out: Any = None, **numpy_kw: Any) -> Any:
    """The mean over ``dim`` (all elements by default), optionally keeping reduced dims."""
    if out is not None:
        return _out_args.write_out("mean", mean, (x, dim, keepdim, dtype), numpy_kw, out)
    ops = backend_of(x).ops
    dim, keepdim = _numpy_args(dim, keepdim, numpy_kw)
    if dtype is not None:
        if not is_floating_or_complex(as_dtype(dtype)):
            raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be "
                               "either a floating point or complex dtype. Got: "
                               f"{dtype_checks.scalar_name(as_dtype(dtype))}")
        x = cast(x, dtype)
    elif not is_floating_or_complex(x.dtype):  # torch does not pick a float dtype for you
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either "
                           "a floating point or complex dtype. Got: "
                           f"{_TORCH_NAMES.get(str(np.dtype(x.dtype)), x.dtype)}")
    dims = None if dim is None else dims_arg(dim, x.ndim)  # None: MeanBackward0, as sum's
    if str(np.dtype(x.dtype)) in ("float16", "bfloat16"):
        # torch accumulates half types in float32: a float16 sum of 10 x 60000 is inf, their
        # mean is 60000
        return cast(ops.mean(cast(x, np.float32), dims, keepdim), x.dtype)
    return ops.mean(x, dims, keepdim)


def amax(x: Any, dim: Any = None, keepdim: bool = False, *, out: Any = None,
         **numpy_kw: Any) -> Any:
    """The maximum over ``dim`` (all dims by default)."""
    if out is not None:
        return _out_args.write_out("amax", amax, (x, dim, keepdim), numpy_kw, out)
    ops = backend_of(x).ops
    dim, keepdim = _numpy_args(dim, keepdim, numpy_kw)
    return ops.amax(x, dims_arg(dim, x.ndim), keepdim)


def amin(x: Any, dim: Any = None, keepdim: bool = False, *, out: Any = None,
         **numpy_kw: Any) -> Any:
    """The minimum over ``dim`` (all dims by default)."""
    if out is not None:
        return _out_args.write_out("amin", amin, (x, dim, keepdim), numpy_kw, out)
    ops = backend_of(x).ops
    dim, keepdim = _numpy_args(dim, keepdim, numpy_kw)
    return ops.amin(x, dims_arg(dim, x.ndim), keepdim)


def max(x: Any, dim: Any = None, keepdim: bool = False, *, out: Any = None,
        **numpy_kw: Any) -> Any:  # noqa: A001
    """``max(x)`` (all elements), ``max(x, dim)`` -> (values, indices), ``max(x, other)``."""
    if out is not None:
        return _out_args.write_out("max", max, (x, dim, keepdim), numpy_kw, out)
    ops = backend_of(x).ops
    if numpy_kw:  # np.max(t, axis=...): numpy semantics, values only
        dim, keepdim = _numpy_args(dim, keepdim, numpy_kw)
        return amax(x, dim, keepdim)
    if dim is None:
        return ops.amax(x, tuple(range(x.ndim)), False)
    if is_tensor(dim):
        return maximum(x, dim)
    return return_types.max(ops.max_dim(x, int(dim), keepdim))


def min(x: Any, dim: Any = None, keepdim: bool = False, *, out: Any = None,
        **numpy_kw: Any) -> Any:  # noqa: A001
    """``min(x)`` (all elements), ``min(x, dim)`` -> (values, indices), ``min(x, other)``."""
    if out is not None:
        return _out_args.write_out("min", min, (x, dim, keepdim), numpy_kw, out)
    ops = backend_of(x).ops
    if numpy_kw:
        dim, keepdim = _numpy_args(dim, keepdim, numpy_kw)
        return amin(x, dim, keepdim)
    if dim is None:
        return ops.amin(x, tuple(range(x.ndim)), False)
    if is_tensor(dim):
        return minimum(x, dim)
    return return_types.min(ops.min_dim(x, int(dim), keepdim))


def logsumexp(x: Any, dim: Any, keepdim: bool = False, *, out: Any = None) -> Any:
    """``log(sum(exp(x), dim))``, computed stably."""
    if out is not None:
        return _out_args.write_out("logsumexp", logsumexp, (x, dim, keepdim), {}, out)
    ops = backend_of(x).ops
    return ops.logsumexp(x, dims_arg(dim, x.ndim), keepdim)


def softmax(x: Any, dim: int, dtype: Any = None, *, out: Any = None) -> Any:
    """``exp(x) / sum(exp(x), dim)``, computed stably."""
    if out is not None:
        return _out_args.write_out("softmax", softmax, (x, dim, dtype), {}, out)
    ops = backend_of(x).ops
    if dtype is None and not is_floating_or_complex(x.dtype):
        raise NotImplementedError('"softmax_lastdim_kernel_impl" not implemented for '
                                  f"'{_torch_dtype_name(x.dtype)}'")
    return ops.softmax(x if dtype is None else cast(x, dtype), dim)


def log_softmax(x: Any, dim: int, dtype: Any = None, *, out: Any = None) -> Any:
    """``log(softmax(x, dim))``, computed stably."""
    if out is not None:
        return _out_args.write_out("log_softmax", log_softmax, (x, dim, dtype), {}, out)
    ops = backend_of(x).ops
    return ops.log_softmax(x if dtype is None else cast(x, dtype), dim)


def _correction(dim: Any, unbiased: Any, correction: Any) -> tuple:
    """(dim, correction) from torch's forms: ``var(x, dim, *, correction=1)``, the legacy
    ``var(x, dim, unbiased)`` and ``var(x, unbiased)``."""
    if isinstance(dim, (bool, np.bool_)):
        if unbiased is not None:
            raise TypeError("var(): unbiased given twice (as dim and as unbiased)")
        dim, unbiased = None, dim
    if unbiased is not None:
        if correction != 1 and correction is not None:
            raise RuntimeError("Cannot specify both unbiased and correction")
        return dim, 1 if unbiased else 0
    return dim, 1 if correction is None else correction  # None: torch's default, 1


def _var_mean(input: Any, dim: Any, correction: Any, keepdim: bool) -> tuple:
    """(variance, mean) with any real ``correction``: the kernels take an integer one; a
    fractional one (torch allows it) rescales the population variance by N / max(0, N - c)."""
    ops = backend_of(input).ops
    dims = dims_arg(dim, input.ndim)
    if float(correction) == int(correction):
        return tuple(ops.var_mean(input, dims, int(correction), bool(keepdim)))
    v, m = ops.var_mean(input, dims, 0, bool(keepdim))
    n = math.prod(input.shape[d] for d in dims)
    return ops.mul(v, n / (n - float(correction)) if n > correction else math.inf), m


def var(input: Any, dim: Any = None, unbiased: Optional[bool] = None, keepdim: bool = False,
        *, correction: Any = 1, out: Any = None) -> Any:
    """The variance over ``dim``, divided by N - ``correction`` (1 by default: Bessel's);
    ``unbiased`` is torch's legacy spelling of correction 1 (True) or 0 (False)."""
    if out is not None:
        return _out_args.write_out("var", var, (input, dim, unbiased, keepdim),
                                   {"correction": correction}, out)
    dim, correction = _correction(dim, unbiased, correction)
    _floating_only(input)
    return _var_mean(input, dim, correction, keepdim)[0]


def _floating_only(input: Any) -> None:
    if not is_floating_or_complex(input.dtype):
        raise RuntimeError("std and var only support floating point and complex dtypes")


def std(input: Any, dim: Any = None, unbiased: Optional[bool] = None, keepdim: bool = False,
        *, correction: Any = 1, out: Any = None) -> Any:
    """The standard deviation over ``dim`` (the square root of ``var``)."""
    if out is not None:
        return _out_args.write_out("std", std, (input, dim, unbiased, keepdim),
                                   {"correction": correction}, out)
    ops = backend_of(input).ops
    return ops.sqrt(var(input, dim, unbiased, keepdim, correction=correction))


def var_mean(input: Any, dim: Any = None, unbiased: Optional[bool] = None,
             keepdim: bool = False, *, correction: Any = 1) -> tuple:
    """(variance, mean) over ``dim`` (``var``'s arguments)."""
    dim, correction = _correction(dim, unbiased, correction)
    _floating_only(input)
    return _var_mean(input, dim, correction, keepdim)


def std_mean(input: Any, dim: Any = None, unbiased: Optional[bool] = None,
             keepdim: bool = False, *, correction: Any = 1) -> tuple:
    """(standard deviation, mean) over ``dim`` (``var``'s arguments)."""
    ops = backend_of(input).ops
    dim, correction = _correction(dim, unbiased, correction)
    _floating_only(input)
    if float(correction) != int(correction):
        v, m = _var_mean(input, dim, correction, keepdim)
        return ops.sqrt(v), m
    return tuple(ops.std_mean(input, dims_arg(dim, input.ndim), int(correction), bool(keepdim)))


def norm(x: Any, p: Any = 2, dim: Any = None, keepdim: bool = False, dtype: Any = None, *,
         out: Any = None) -> Any:
    """The ``p``-norm over ``dim`` (2, 1, inf, 'fro' or any p > 0), of x cast to ``dtype``
    when given."""
    if out is not None:
        return _out_args.write_out("norm", norm, (x, p, dim, keepdim, dtype), {}, out)
    if dtype is not None:
        x = cast(x, dtype)
    ops = backend_of(x).ops
    if isinstance(p, str) and p != "fro":
        return _matrix_norm(x, p, dim, keepdim)
    if not is_floating_or_complex(x.dtype):
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_TORCH_NAMES.get(str(np.dtype(x.dtype)), x.dtype)}")
    dims = dims_arg(dim, x.ndim)
    if p == 2 or p == "fro":  # 0 gradient at a zero group, as torch (formulas/reduce.py)
        return ops.norm2(x, dims, keepdim)
    if p == 1:
        return ops.sum(ops.abs(x), dims, keepdim)
    if p == float("inf"):
        return ops.amax(ops.abs(x), dims, keepdim)
    if p == -float("inf"):
        return ops.amin(ops.abs(x), dims, keepdim)
    if p == 0:  # the count of nonzero entries (no gradient, as torch's)
        return ops.sum(cast(ops.ne(x, scalar(x, 0.0)), x.dtype), dims, keepdim)
    # Note [The p-norm's gradient at zero]
    # s ** (1/p) has an infinite derivative at s = 0, times the zero derivative of sum |x|^p
    # there: NaN where torch gives the subgradient 0. The root is taken of s where s > 0 and of
    # 1 elsewhere, and 0 is selected where s = 0: the same values, and the zero group's
    # gradient goes through the constant branch only (0, to any order).
    s = ops.sum(ops.pow_scalar(ops.abs(x), float(p)), dims, keepdim)
    zero = eq(s, 0.0)
    root = ops.pow_scalar(where(zero, 1.0, s), 1.0 / p)
    return where(zero, 0.0, root)


def _matrix_norm(x: Any, p: str, dim: Any, keepdim: bool) -> Any:
    """``norm(x, "nuc")``: the sum of the singular values over two dims (torch's
    linalg.matrix_norm, with its errors)."""
    if p != "nuc":
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    if x.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    dims = tuple(range(x.ndim)) if dim is None else dims_arg(dim, x.ndim)
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                           f"{' '.join(str(d) for d in dims)}")
    from transgrad._api.factorizations import svdvals

    d0, d1 = wrap_dim(dims[0], x.ndim), wrap_dim(dims[1], x.ndim)
    rest = [d for d in range(x.ndim) if d not in (d0, d1)]
    out = sum(svdvals(permute(x, (*rest, d0, d1))), -1)
    for d in sorted((d0, d1)) if keepdim else ():
        out = unsqueeze(out, d)
    return out

# -- shape -----------------------------------------------------------------------------


@track_view
def reshape(x: Any, *shape: Any) -> Any:
    """``x`` with shape ``shape`` (one -1 is inferred); a view when the layout allows."""
    ops = backend_of(x).ops
    shape = infer_shape(shape_arg(shape), math.prod(x.shape))
    return ops.reshape(x, shape)


@track_view
def flatten(x: Any, start_dim: int = 0, end_dim: int = -1) -> Any:
    """``x`` with dims start_dim..end_dim merged into one."""
    ops = backend_of(x).ops
    if x.ndim == 0:
        return ops.reshape(x, (1,))
    s, e = wrap_dim(start_dim, x.ndim), wrap_dim(end_dim, x.ndim)
    if s > e:  # torch's check (the merge below would duplicate dims)
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = tuple(x.shape)
    return reshape(x, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])


@track_view
def unflatten(x: Any, dim: int, sizes: Sequence[int]) -> Any:
    """``x`` with dim ``dim`` split into ``sizes``."""
    d = wrap_dim(dim, x.ndim)
    shape = tuple(x.shape)
    return reshape(x, shape[:d] + infer_shape(tuple(sizes), shape[d]) + shape[d + 1:])


@track_view
def squeeze(x: Any, dim: Any = None) -> Any:
    """``x`` without its size-1 dims (only ``dim`` when given; a view)."""
    ops = backend_of(x).ops
    if dim is None:  # torch's node: SqueezeBackward0 (1 with a dim)
        return ops.squeeze(x, None)
    shape = tuple(x.shape)
    dims = [wrap_dim(d, x.ndim) for d in dims_arg(dim, x.ndim)]
    return ops.squeeze(x, tuple(d for d in dims if x.ndim and shape[d] == 1))


@track_view
def unsqueeze(x: Any, dim: int) -> Any:
    """``x`` with a size-1 dim inserted at ``dim`` (a view)."""
    ops = backend_of(x).ops
    return ops.unsqueeze(x, dim)


@track_view
def expand(x: Any, *sizes: Any) -> Any:
    """``x`` broadcast to ``sizes`` (-1 keeps a size; a view, no copy)."""
    ops = backend_of(x).ops
    sizes = shape_arg(sizes)
    lead = len(sizes) - x.ndim
    if lead < 0:
        raise RuntimeError(f"expand({x.type()}{{{list(x.shape)}}}, size={list(sizes)}): the "
                           f"number of sizes provided ({len(sizes)}) must be greater or equal "
                           f"to the number of dimensions in the tensor ({x.ndim})")
    shape = tuple(x.shape[i - lead] if s == -1 and i >= lead else s
                  for i, s in enumerate(sizes))
    return ops.expand(x, shape)


@track_view
def broadcast_to(x: Any, shape: Sequence[int]) -> Any:
    """``x`` expanded to ``shape`` (a view)."""
    return expand(x, tuple(shape))


def broadcast_tensors(*tensors: Any) -> tuple:
    """The tensors expanded to their common broadcast shape (views)."""
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(expand(t, shape) for t in tensors)


@track_view
def permute(x: Any, *dims: Any) -> Any:
    """``x`` with its dims reordered as ``dims`` (a view)."""
    ops = backend_of(x).ops
    return ops.permute(x, shape_arg(dims))


@track_view
def transpose(x: Any, dim0: int, dim1: int) -> Any:
    """``x`` with dims ``dim0`` and ``dim1`` swapped (a view)."""
    ops = backend_of(x).ops
    return ops.transpose(x, dim0, dim1)


@track_view
def t(x: Any) -> Any:
    """The transpose of a tensor of at most 2 dims (a view)."""
    ops = backend_of(x).ops
    if x.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    return x if x.ndim < 2 else ops.t(x)


@track_view
def movedim(x: Any, source: Any, destination: Any) -> Any:
    """``x`` with dim(s) ``source`` moved to position(s) ``destination`` (a view); the other
    dims keep their order, as torch's."""
    ops = backend_of(x).ops
    srcs = [source] if isinstance(source, (int, np.integer)) else list(source)
    dsts = [destination] if isinstance(destination, (int, np.integer)) else list(destination)
    if len(srcs) != len(dsts):
        raise RuntimeError("movedim: Invalid source or destination dims: source "
                           f"({srcs} dims) should contain the same number of dims as "
                           f"destination ({dsts} dims)")
    srcs = [wrap_dim(int(s), x.ndim) for s in srcs]
    dsts = [wrap_dim(int(d), x.ndim) for d in dsts]
    if len(set(srcs)) != len(srcs):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(source)})")
    if len(set(dsts)) != len(dsts):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(destination)})")
    order: list = [None] * x.ndim
    for s, d in zip(srcs, dsts):
        order[d] = s
    rest = iter(i for i in range(x.ndim) if i not in srcs)
    order = [o if o is not None else next(rest) for o in order]
    return ops.permute(x, tuple(order))


def contiguous(x: Any) -> Any:
    """``x`` with a contiguous layout (``x``'s values)."""
    ops = backend_of(x).ops
    return ops.contiguous(x)


def clone(x: Any, *, memory_format: Any = None) -> Any:
    """A copy of ``x`` with its own storage, differentiable; laid out as ``memory_format`` says
    (torch's preserve_format by default: a dense ``x``'s strides; _api/memory_formats.py)."""
    if memory_format is not contiguous_format and (memory_format is not None or (
            x.ndim > 1 and not x._is_contiguous())):
        from transgrad._api.memory_formats import clone as clone_in_format

        return clone_in_format(x, memory_format=memory_format)
    ops = backend_of(x).ops
    return ops.clone(x)


def cat(tensors: Sequence[Any], dim: int = 0, *, out: Any = None) -> Any:
    """The tensors joined along the existing dimension ``dim``. As torch's, a 1-D empty tensor
    (shape (0,), the legacy "no data") is skipped whatever the others' shapes (its gradient is
    then empty: None)."""
    if out is not None:
        return _out_args.write_out("cat", cat, (tensors, dim), {}, out)
    if isinstance(tensors, (list, tuple)) and not tensors:
        raise ArgumentError("torch.cat(): expected a non-empty list of Tensors")  # a ValueError
    ops = _ops_of_seq(tensors)
    tensors = list(tensors)
    kept = [t for t in tensors if not (is_tensor(t) and tuple(t.shape) == (0,))]
    if kept and len(kept) < len(tensors) and builtins.any(
            is_tensor(t) and t.ndim != 1 for t in kept):
        tensors = kept
    return ops.cat(tensors, dim)


def stack(tensors: Sequence[Any], dim: int = 0, *, out: Any = None) -> Any:
    """The tensors joined along a new dimension ``dim``."""
    if out is not None:
        return _out_args.write_out("stack", stack, (tensors, dim), {}, out)
    ops = _ops_of_seq(tensors)
    return ops.stack(list(tensors), dim)


@track_view
def as_strided(input: Any, size: Any, stride: Any, storage_offset: Any = None) -> Any:
    """torch.as_strided: a view of ``input``'s storage with sizes ``size``, strides ``stride`` and
    offset ``storage_offset`` (in elements; ``input``'s own offset when None). The geometry is
    checked against the storage first (torch's errors: Note [as_strided is bounds-checked] in
    csrc/kernels/shape.cpp); the gradient flows back through ``input``'s own geometry
    (``AsStridedBackward0``, formulas/shape.py)."""
    B = backend_of(input)
    size_t, stride_t = int_list(size, "size"), int_list(stride, "stride")
    own_stride, own_offset = tuple(int(s) for s in input.stride()), offset_in_storage(input)
    offset = own_offset if storage_offset is None else int(storage_offset)
    return B.ops.as_strided(input, size_t, stride_t, offset, own_stride, own_offset)


@track_view
def narrow(x: Any, dim: int, start: int, length: int) -> Any:
    """``length`` entries of ``x`` from ``start`` along ``dim`` (a view). A negative ``start``
    counts from the end; out-of-range starts and lengths raise, as torch (never clamped)."""
    ops = backend_of(x).ops
    if x.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    size = x.shape[wrap_dim(dim, x.ndim)]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    if start < 0:
        start += size
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size "
                           f"({size}).")
    return ops.slice(x, dim, start, start + length, 1)


@track_views
def split(x: Any, split_size_or_sections: Any, dim: int = 0) -> tuple:
    """Views of ``x`` along ``dim``: of size ``split_size_or_sections``, or of the given sizes."""
    d = wrap_dim(dim, x.ndim)
    n = x.shape[d]
    if isinstance(split_size_or_sections, (int, np.integer)):
        step = int(split_size_or_sections)
        if step < 0 or (step == 0 and n != 0):  # torch's checks (range() would fail or loop)
            raise RuntimeError("split expects split_size be non-negative, but got split_size="
                               f"{step}" if step < 0 else "split_size can only be 0 if dimension "
                               f"size is 0, but got dimension size of {n}")
        sizes = [builtins_min(step, n - i) for i in range(0, n, step)] if step else [0]
    else:
        sizes = list(split_size_or_sections)
        if sizes and builtins_min(sizes) < 0:  # [5, -1] sums to 4 and would slice out of range
            raise RuntimeError("split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={sizes}")
        if builtins_sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {dim}), but got "
                               f"split_sizes={sizes}")
    # one node for all the views, as torch's (Note [Several views, one node])
    kind = "split" if isinstance(split_size_or_sections, (int, np.integer)) else "split_with_sizes"
    return backend_of(x).views_along(x, d, sizes, kind)


@track_views
def split_with_sizes(x: Any, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    """Views of ``x`` along ``dim`` of the given sizes (``split`` with a list; they must add up
    to the size, as torch checks)."""
    total = x.shape[wrap_dim(dim, x.ndim)]
    if builtins.sum(split_sizes) != total:
        raise RuntimeError("split_with_sizes expects split_sizes to sum exactly to "
                           f"{total} (input tensor's size at dimension {dim}), but got "
                           f"split_sizes={list(split_sizes)}")
    return split(x, list(split_sizes), dim)


@track_views
def chunk(x: Any, chunks: int, dim: int = 0) -> tuple:
    """``chunks`` views of nearly equal size along ``dim`` (the last may be smaller)."""
    if chunks <= 0:  # torch's check: 0 divided by zero, a negative count gave wrong chunks
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = x.shape[wrap_dim(dim, x.ndim)]
    return split(x, builtins_max(-(-n // chunks), 1), dim)


@track_views
def unbind(x: Any, dim: int = 0) -> tuple:
    """The slices of ``x`` along ``dim`` (views), that dim removed: one UnbindBackward0 node
    for all of them, as torch's (Note [Several views, one node])."""
    if x.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, x.ndim)
    return backend_of(x).views_along(x, d, [1] * x.shape[d], "unbind")

# -- indexing --------------------------------------------------------------------------


def _index(x: Any, index: Any) -> Any:
    if is_tensor(index):  # torch takes int32 indices too: the kernels' are int64
        return backend_of(index).ops.cast(index, "int64") if index.dtype.name == "int32" \
            else index
    return backend_of(x).from_numpy(np.asarray(index, dtype=_I64, order="C"))


def _index_in_self(x: Any, dim: int, index: Any) -> Any:
    """``index`` as a tensor, with torch's error for an entry outside ``x``'s ``dim`` (the
    kernels' own message is torch's for Python indexing, which shares them)."""
    idx = _index(x, index)
    size = x.shape[wrap_dim(dim, x.ndim)] if x.ndim else 1
    a = np.asarray(idx)
    if a.size and a.dtype.kind in "iu" and (a.min() < 0 or a.max() >= size):
        raise IndexError("index out of range in self")
    return idx


def on_0d(f: Any, x: Any, dim: int, index: Any, *rest: Any, **kw: Any) -> Any:
    """torch's index_* ops on a 0-d ``x``: as on its 1-element 1-D view (a 0-d index or
    source too), the result 0-d."""
    wrap_dim(dim, 0)

    def one(t: Any) -> Any:
        return reshape(t, (1,)) if is_tensor(t) and t.ndim == 0 else t

    return reshape(f(reshape(x, (1,)), 0, one(index), *map(one, rest), **kw), ())


def index_select(x: Any, dim: int, index: Any, *, out: Any = None) -> Any:
    """The entries ``index`` (1-D int64) of ``x`` along ``dim``."""
    if out is not None:
        return _out_args.write_out("index_select", index_select, (x, dim, index), {}, out)
    if x.ndim == 0:
        return on_0d(index_select, x, dim, index)
    ops = backend_of(x).ops
    return ops.index_select(x, dim, _index_in_self(x, dim, index))


def gather(x: Any, dim: int, index: Any, *, sparse_grad: bool = False, out: Any = None) -> Any:
    """The elements of ``x`` at ``index`` along ``dim``
    (dim 0: ``out[i][j] = x[index[i][j]][j]``); the gradient is dense (``sparse_grad=True``,
    a sparse gradient, is not supported)."""
    if out is not None:
        return _out_args.write_out("gather", gather, (x, dim, index),
                                   {"sparse_grad": sparse_grad}, out)
    if sparse_grad:
        raise NotImplementedError("gather(sparse_grad=True): transgrad has no sparse tensors; "
                                  "the default dense gradient holds the same values")
    ops = backend_of(x).ops
    # a 0-d x or index stands for a 1-element 1-D one, as torch (the kernels' rule)
    return ops.gather(x, dim, _index(x, index))


def index_add(x: Any, dim: int, index: Any, source: Any, alpha: Any = 1, *, out: Any = None) -> Any:
    """``x`` with ``alpha * source`` added at the positions ``index`` along ``dim``."""
    if out is not None:
        return _out_args.write_out("index_add", index_add, (x, dim, index, source, alpha), {}, out)
    if x.ndim == 0:
        return on_0d(index_add, x, dim, index, source, alpha)
    ops = backend_of(x).ops
    dtype_checks.check_index_add(x, source)
    if alpha != 1:
        source = mul(source, alpha)
    return ops.index_add(x, dim, _index_in_self(x, dim, index), source)


def scatter_add(x: Any, dim: int, index: Any, src: Any, *, out: Any = None) -> Any:
    """``x`` with ``src`` added at the positions ``index`` along ``dim``."""
    if out is not None:
        return _out_args.write_out("scatter_add", scatter_add, (x, dim, index, src), {}, out)
    ops = backend_of(x).ops
    dtype_checks.check_scatter(x, src)
    return ops.scatter_add(x, dim, _index(x, index), src)


def slice_scatter(x: Any, src: Any, dim: int = 0, start: Optional[int] = None,
                  end: Optional[int] = None, step: int = 1, *, out: Any = None) -> Any:
    """``x`` with the slice start:end:step along ``dim`` replaced by ``src``."""
    if out is not None:
        return _out_args.write_out("slice_scatter", slice_scatter, (x, src, dim, start, end, step),
                                   {}, out)
    ops = backend_of(x).ops
    return ops.slice_scatter(x, src, dim, start, end, step)


def select_scatter(x: Any, src: Any, dim: int, index: int) -> Any:
    """``x`` with the slice at ``index`` along ``dim`` replaced by ``src``."""
    ops = backend_of(x).ops
    return ops.select_scatter(x, src, dim, index)


@track_view
def select(x: Any, dim: int, index: int) -> Any:
    """The slice of ``x`` at ``index`` along ``dim``, that dim removed (a view)."""
    ops = backend_of(x).ops
    return ops.select(x, dim, index)


@track_view
def diagonal(x: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
    """The diagonal at ``offset`` of the planes (dim1, dim2), as the last dim (a view)."""
    ops = backend_of(x).ops
    return ops.diagonal(x, offset, dim1, dim2)


def diagonal_scatter(x: Any, src: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
    """``x`` with its diagonal (offset, dim1, dim2) replaced by ``src``."""
    ops = backend_of(x).ops
    return ops.diagonal_scatter(x, src, offset, dim1, dim2)

# -- linear algebra --------------------------------------------------------------------


def _check_vector_product(x: Any, other: Any) -> None:
    """torch's errors for the products with a 1-D operand, whose shapes the kernel no longer
    sees as the user gave them (the formula makes vectors matrices)."""
    if x.ndim == 0 or other.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{x.ndim}D and {other.ndim}D")
    if other.ndim == 1 and x.shape[-1] != other.shape[0]:
        if x.ndim == 1:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{x.shape[0]}] and "
                               f"src [{other.shape[0]}] to have the same number of elements, "
                               f"but got {x.shape[0]} and {other.shape[0]} elements respectively")
        rows = math.prod(x.shape[:-1])
        raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{x.shape[-1]}), "
                           f"vec ({other.shape[0]})")


def matmul(x: Any, other: Any, *, out: Any = None) -> Any:
    """The matrix product with numpy/torch's rules for 1-D and batched operands."""
    if out is not None:
        return _out_args.write_out("matmul", matmul, (x, other), {}, out)
    ops = backend_of(x).ops
    if not is_tensor(other):
        other = as_tensor(other, x)
    _check_vector_product(x, other)
    dtype_checks.check_matmul(x, other)
    return ops.matmul(x, other)


def mm(x: Any, other: Any, *, out: Any = None) -> Any:
    """The matrix product of two 2-D tensors."""
    if out is not None:
        return _out_args.write_out("mm", mm, (x, other), {}, out)
    ops = backend_of(x).ops
    if x.ndim != 2 or other.ndim != 2:
        raise RuntimeError("self must be a matrix" if x.ndim != 2 else "mat2 must be a matrix")
    dtype_checks.check_mm(x, other)
    return ops.matmul(x, other)


def bmm(x: Any, other: Any, *, out: Any = None) -> Any:
    """Batched matrix product of two 3-D tensors."""
    if out is not None:
        return _out_args.write_out("bmm", bmm, (x, other), {}, out)
    ops = backend_of(x).ops
    if x.ndim != 3 or other.ndim != 3:
        raise RuntimeError(f"batch{1 if x.ndim != 3 else 2} must be a 3D tensor")
    dtype_checks.check_bmm(x, other)
    return ops.bmm(x, other)


def dot(x: Any, other: Any, *, out: Any = None) -> Any:
    """The inner product of two 1-D tensors."""
    if out is not None:
        return _out_args.write_out("dot", dot, (x, other), {}, out)
    ops = backend_of(x).ops
    if x.ndim != 1 or other.ndim != 1:
        raise RuntimeError("1D tensors expected, but got "
                           f"{x.ndim}D and {other.ndim}D tensors")
    dtype_checks.check_dot(x, other)  # torch checks the dtypes before the sizes
    _check_vector_product(x, other)
    return ops.dot(x, other)


def outer(x: Any, other: Any, *, out: Any = None) -> Any:
    """The outer product of two 1-D tensors."""
    if out is not None:
        return _out_args.write_out("outer", outer, (x, other), {}, out)
    ops = backend_of(x).ops
    return ops.mul(ops.unsqueeze(x, 1), ops.unsqueeze(other, 0))

# -- not differentiable: computed on the data ------------------------------------------


def _data(x: Any) -> np.ndarray:
    return np.asarray(x.detach() if x.requires_grad else x)


def _from(like: Any, a: Any) -> Any:
    """The numpy result ``a`` as a tensor of ``like``'s engine."""
    return backend_of(like).from_numpy(np.asarray(a, order="C"))


def _arg_reduce(name: str, find: Any, x: Any, dim: Optional[int], keepdim: bool) -> Any:
    """argmax/argmin with torch's checks: a dim in range, and no reduction over zero elements
    (an index of nothing does not exist)."""
    a = _data(x)
    if dim is None:
        if a.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                               "input.numel() == 0.")
        out = np.array(find(a), dtype=_I64)
        return _from(x, out.reshape((1,) * a.ndim) if keepdim else out)
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return _from(x, np.array(0, dtype=_I64))
    if a.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return _from(x, find(a, axis=d, keepdims=keepdim).astype(_I64))


def argmax(x: Any, dim: Optional[int] = None, keepdim: bool = False, *, out: Any = None) -> Any:
    """The index of the maximum (of the flattened tensor, or along ``dim``); int64."""
    if out is not None:
        return _out_args.write_out("argmax", argmax, (x, dim, keepdim), {}, out)
    return _arg_reduce("argmax", np.argmax, x, dim, keepdim)


def argmin(x: Any, dim: Optional[int] = None, keepdim: bool = False, *, out: Any = None) -> Any:
    """The index of the minimum (of the flattened tensor, or along ``dim``); int64."""
    if out is not None:
        return _out_args.write_out("argmin", argmin, (x, dim, keepdim), {}, out)
    return _arg_reduce("argmin", np.argmin, x, dim, keepdim)


def _axes(dim: Any, ndim: int) -> Any:
    """A ``dim`` argument as numpy axes, checked as torch checks it (None: every dim)."""
    if dim is None or ndim == 0:
        if dim is not None:
            dims_arg(dim, 0)
        return None
    return tuple(wrap_dim(d, ndim) for d in dims_arg(dim, ndim))


def all(x: Any, dim: Optional[int] = None, keepdim: bool = False, *,
        out: Any = None) -> Any:  # noqa: A001
    """Whether every element is true (over ``dim`` when given); not differentiable."""
    if out is not None:
        return _out_args.write_out("all", all, (x, dim, keepdim), {}, out)
    return _from(x, np.all(_data(x), axis=_axes(dim, x.ndim), keepdims=keepdim))


def any(x: Any, dim: Optional[int] = None, keepdim: bool = False, *,
        out: Any = None) -> Any:  # noqa: A001
    """Whether some element is true (over ``dim`` when given); not differentiable."""
    if out is not None:
        return _out_args.write_out("any", any, (x, dim, keepdim), {}, out)
    return _from(x, np.any(_data(x), axis=_axes(dim, x.ndim), keepdims=keepdim))


def logical_not(x: Any, *, out: Any = None) -> Any:
    """Elementwise ``not x`` (bool); not differentiable."""
    if out is not None:
        return _out_args.write_out("logical_not", logical_not, (x,), {}, out)
    return _from(x, np.logical_not(_data(x)))


def logical_and(x: Any, other: Any, *, out: Any = None) -> Any:
    """Elementwise ``x and other`` (bool); not differentiable."""
    if out is not None:
        return _out_args.write_out("logical_and", logical_and, (x, other), {}, out)
    if type(other) is not type(x) or not is_tensor(x):
        check_tensors("logical_and", x, other)
    return _from(x, np.logical_and(_data(x), np.asarray(other)))


def logical_or(x: Any, other: Any, *, out: Any = None) -> Any:
    """Elementwise ``x or other`` (bool); not differentiable."""
    if out is not None:
        return _out_args.write_out("logical_or", logical_or, (x, other), {}, out)
    if type(other) is not type(x) or not is_tensor(x):
        check_tensors("logical_or", x, other)
    return _from(x, np.logical_or(_data(x), np.asarray(other)))


def logical_xor(x: Any, other: Any, *, out: Any = None) -> Any:
    """Elementwise ``x xor other`` (bool); not differentiable."""
    if out is not None:
        return _out_args.write_out("logical_xor", logical_xor, (x, other), {}, out)
    if type(other) is not type(x) or not is_tensor(x):
        check_tensors("logical_xor", x, other)
    return _from(x, np.logical_xor(_data(x), np.asarray(other)))


def _bitwise(name: str, x: Any, other: Any = None) -> Any:
    """torch's bitwise ops (``~ & | ^``): on bool tensors logical, on integer tensors bitwise
    in the promoted dtype, refused for floating tensors with torch's error.

    Note [Bitwise is not logical]
    ``~``, ``&``, ``|`` and ``^`` were the logical ops, right only for bool: ``~x`` of a uint8
    0 gave True where torch gives 255, ``x & 3`` gave a bool. They compute here in numpy, whose
    promotion of two integer arrays (or an integer array and a Python int) is torch's."""
    operands = [x] if other is None else [x, other]
    for o in operands:
        if is_tensor(o) and not (is_integral(o.dtype) or np.dtype(o.dtype) == np.bool_) or (
                isinstance(o, float)):
            if name == "not":
                raise TypeError("~ (operator.invert) is only implemented on integer and "
                                "Boolean-type tensors")
            dt = o.dtype if is_tensor(o) else x.dtype
            raise NotImplementedError(f'"bitwise_{name}_cpu" not implemented for '
                                      f"'{_torch_dtype_name(dt)}'")
    a = _data(x)
    if other is None:
        return _from(x, np.invert(a))
    b = _data(other) if is_tensor(other) else other
    f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[name]
    return _from(x, np.asarray(f(a, b)))


_TORCH_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half",
                "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "int16": "Short",
                "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _torch_dtype_name(dtype: Any) -> str:
    """The name torch's kernel errors give a dtype ('Float', 'Long')."""
    return _TORCH_NAMES.get(str(np.dtype(dtype)), str(dtype))


def bitwise_not(x: Any, *, out: Any = None) -> Any:
    """``~x``: bitwise NOT of an integer tensor, logical NOT of a bool one; not differentiable."""
    if out is not None:
        return _out_args.write_out("bitwise_not", bitwise_not, (x,), {}, out)
    return _bitwise("not", x)


def bitwise_and(x: Any, other: Any, *, out: Any = None) -> Any:
    """``x & other``: bitwise AND (logical for bool); not differentiable."""
    if out is not None:
        return _out_args.write_out("bitwise_and", bitwise_and, (x, other), {}, out)
    if not is_tensor(x):
        check_tensor_first("bitwise_and", x, other)
    return _bitwise("and", x, other)


def bitwise_or(x: Any, other: Any, *, out: Any = None) -> Any:
    """``x | other``: bitwise OR (logical for bool); not differentiable."""
    if out is not None:
        return _out_args.write_out("bitwise_or", bitwise_or, (x, other), {}, out)
    if not is_tensor(x):
        check_tensor_first("bitwise_or", x, other)
    return _bitwise("or", x, other)


def bitwise_xor(x: Any, other: Any, *, out: Any = None) -> Any:
    """``x ^ other``: bitwise XOR (logical for bool); not differentiable."""
    if out is not None:
        return _out_args.write_out("bitwise_xor", bitwise_xor, (x, other), {}, out)
    if not is_tensor(x):
        check_tensor_first("bitwise_xor", x, other)
    return _bitwise("xor", x, other)


def _rounded(input: Any, rounding: Any) -> Any:
    """``rounding`` of ``input``'s data, with ``trunc``'s zero gradient."""
    B = backend_of(input)
    if input.dtype.kind in "iub":
        return B.ops.clone(input)
    a = _data(input)
    t = B.ops.trunc(input)
    shift = np.where(np.isfinite(a), rounding(a) - np.trunc(a), 0).astype(a.dtype)
    if not shift.any():
        return t
    return B.ops.add(t, B.from_numpy(np.array(shift, order="C")))


def floor(input: Any, *, out: Any = None) -> Any:
    """The largest integer <= input, elementwise (a zero gradient, as torch)."""
    if out is not None:
        return _out_args.write_out("floor", floor, (input,), {}, out)
    return _rounded(input, np.floor)


def ceil(input: Any, *, out: Any = None) -> Any:
    """The smallest integer >= input, elementwise (a zero gradient, as torch)."""
    if out is not None:
        return _out_args.write_out("ceil", ceil, (input,), {}, out)
    return _rounded(input, np.ceil)


def round(input: Any, *, decimals: int = 0, out: Any = None) -> Any:  # noqa: A001
    """Rounding half to even, to ``decimals`` decimal places (a zero gradient, as torch)."""
    if out is not None:
        return _out_args.write_out("round", round, (input,), {"decimals": decimals}, out)
    d = int(decimals)
    if d == 0:
        return _rounded(input, np.round)
    if input.dtype.kind in "iub":
        raise RuntimeError('"round_decimals_cpu" not implemented for \'Long\'')
    scale = 10.0 ** builtins.abs(d)

    def rounding(a: np.ndarray) -> np.ndarray:
        # torch: nearbyint(x * 10^d) / 10^d (d < 0: nearbyint(x / 10^-d) * 10^-d)
        return np.round(a * scale) / scale if d > 0 else np.round(a / scale) * scale

    return _rounded(input, rounding)


def trunc(input: Any, *, out: Any = None) -> Any:
    """Rounding toward zero, elementwise (a zero gradient, as torch)."""
    if out is not None:
        return _out_args.write_out("trunc", trunc, (input,), {}, out)
    if input.dtype.kind in "iub":
        return backend_of(input).ops.clone(input)
    return backend_of(input).ops.trunc(input)


fix = trunc


def div(input: Any, other: Any, *, rounding_mode: Optional[str] = None, out: Any = None) -> Any:
    """``input / other``; ``rounding_mode="trunc"`` rounds toward zero, ``"floor"`` down (both
    with a zero gradient, as torch)."""
    if out is not None:
        return _out_args.write_out("div", div, (input, other),
                                   {"rounding_mode": rounding_mode}, out)
    if rounding_mode is None:
        return _binary("div", input, other)
    if rounding_mode == "trunc":
        return _binary("div_trunc", input, other)
    if rounding_mode == "floor":
        return _binary("div_floor", input, other)
    raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                       f"found '{rounding_mode}'")


divide, true_divide = div, div


def floor_divide(input: Any, other: Any, *, out: Any = None) -> Any:
    """``div(input, other, rounding_mode="floor")``."""
    if out is not None:
        return _out_args.write_out("floor_divide", floor_divide, (input, other), {}, out)
    return _binary("div_floor", input, other)


def fmod(input: Any, other: Any, *, out: Any = None) -> Any:
    """The remainder of ``input / other`` with the sign of ``input`` (C's fmod)."""
    if out is not None:
        return _out_args.write_out("fmod", fmod, (input, other), {}, out)
    return _binary("fmod", input, other, 1)


def remainder(input: Any, other: Any, *, out: Any = None) -> Any:
    """The remainder of ``input / other`` with the sign of ``other`` (Python's %)."""
    if out is not None:
        return _out_args.write_out("remainder", remainder, (input, other), {}, out)
    if not is_tensor(input) and isinstance(input, numbers.Number):
        return _binary("remainder", as_tensor(input, other), other)
    return _binary("remainder", input, other)



def isnan(x: Any, *, out: Any = None) -> Any:
    """Whether each element is NaN (bool)."""
    if out is not None:
        return _out_args.write_out("isnan", isnan, (x,), {}, out)
    return _from(x, np.isnan(_data(x)))


def isinf(x: Any) -> Any:
    """Whether each element is +-inf (bool)."""
    return _from(x, np.isinf(_data(x)))


def isfinite(x: Any) -> Any:
    """Whether each element is finite (bool)."""
    return _from(x, np.isfinite(_data(x)))


def allclose(x: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """Whether ``x`` and ``other`` are elementwise equal within ``atol + rtol * |other|``."""
    return bool(np.allclose(_data(x), _data(other), rtol, atol, equal_nan))


def equal(x: Any, other: Any) -> bool:
    """Whether ``x`` and ``other`` have the same shape and elements (a bool)."""
    return tuple(x.shape) == tuple(other.shape) and bool(np.array_equal(_data(x),
                                                                       _data(other)))


# PyTorch's other spellings of the same functions.
negative, concat, concatenate = neg, cat, cat
clip, swapaxes, absolute, multiply = clamp, transpose, abs, mul
subtract, greater, less = sub, gt, lt
builtins_min, builtins_max, builtins_sum = builtins.min, builtins.max, builtins.sum
