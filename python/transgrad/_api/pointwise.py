"""PyTorch-style elementwise functions over the formulas of formulas/pointwise.py and
formulas/special.py: hyperbolic and inverse trigonometric functions, ``atan2``, ``hypot``,
``logaddexp``, ``lerp``, ``addcmul``/``addcdiv``, ``fmod``/``remainder``, the special functions
(``erfinv``, ``lgamma``, ``digamma``, ``polygamma``, ``logit``, ``xlogy``).

Input: tensors of either engine (a Python number where torch takes one). Output: the functions of
``__all__``, exported by both engines and reused as Tensor methods (methods.py) and by
``transgrad.special``. Each finds its engine with ``backend_of`` and calls that engine's formula,
so both engines behave the same and every result is differentiable to any order.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from transgrad._api import dtype_checks
from transgrad._api import out_args as _out_args
from transgrad._api.functions import (
    as_tensor,
    cast,
    check_tensor_first,
    check_tensors,
    clamp,
    mul,
    sub,
    trunc,
)
from transgrad._backend import backend_of, is_tensor
from transgrad._dtypes import bool_, is_floating_or_complex

__all__ = [
    "acos", "acosh", "addcdiv", "addcmul", "arccos", "arccosh", "arcsin", "arcsinh", "arctan",
    "arctan2", "arctanh", "asin", "asinh", "atan", "atan2", "atanh", "clamp_max", "clamp_min",
    "cosh", "deg2rad", "digamma", "erfc", "erfinv", "exp2", "frac", "hardshrink", "hypot",
    "lerp", "lgamma", "logaddexp", "logaddexp2", "logit", "nan_to_num", "polygamma", "rad2deg",
    "rsub", "sgn", "sinh", "xlogy",
]


def _pair(x: Any, other: Any) -> tuple:
    """Both operands as tensors of one engine (a Python number takes the scalar rule)."""
    if not is_tensor(x):
        x = as_tensor(x, other)
    return x, as_tensor(other, x)


def _binary(name: str, x: Any, other: Any) -> Any:
    x, other = _pair(x, other)
    return getattr(backend_of(x).ops, name)(x, other)


# -- hyperbolic and inverse trigonometric functions -----------------------------------------


def sinh(input: Any, *, out: Any = None) -> Any:
    """The hyperbolic sine."""
    if out is not None:
        return _out_args.write_out("sinh", sinh, (input,), {}, out)
    return backend_of(input).ops.sinh(input)


def cosh(input: Any, *, out: Any = None) -> Any:
    """The hyperbolic cosine."""
    if out is not None:
        return _out_args.write_out("cosh", cosh, (input,), {}, out)
    return backend_of(input).ops.cosh(input)


def asinh(input: Any, *, out: Any = None) -> Any:
    """The inverse hyperbolic sine."""
    if out is not None:
        return _out_args.write_out("asinh", asinh, (input,), {}, out)
    return backend_of(input).ops.asinh(input)


def acosh(input: Any, *, out: Any = None) -> Any:
    """The inverse hyperbolic cosine (NaN below 1)."""
    if out is not None:
        return _out_args.write_out("acosh", acosh, (input,), {}, out)
    return backend_of(input).ops.acosh(input)


def atanh(input: Any, *, out: Any = None) -> Any:
    """The inverse hyperbolic tangent (NaN outside [-1, 1])."""
    if out is not None:
        return _out_args.write_out("atanh", atanh, (input,), {}, out)
    return backend_of(input).ops.atanh(input)


def asin(input: Any, *, out: Any = None) -> Any:
    """The arcsine (NaN outside [-1, 1])."""
    if out is not None:
        return _out_args.write_out("asin", asin, (input,), {}, out)
    return backend_of(input).ops.asin(input)


def acos(input: Any, *, out: Any = None) -> Any:
    """The arccosine (NaN outside [-1, 1])."""
    if out is not None:
        return _out_args.write_out("acos", acos, (input,), {}, out)
    return backend_of(input).ops.acos(input)


def atan(input: Any, *, out: Any = None) -> Any:
    """The arctangent."""
    if out is not None:
        return _out_args.write_out("atan", atan, (input,), {}, out)
    return backend_of(input).ops.atan(input)


def atan2(input: Any, other: Any, *, out: Any = None) -> Any:
    """The angle of the point (other, input): ``atan(input / other)`` in the right quadrant."""
    if out is not None:
        return _out_args.write_out("atan2", atan2, (input, other), {}, out)
    if type(other) is not type(input) or not is_tensor(input):
        check_tensors("atan2", input, other)
    return _binary("atan2", input, other)


def hypot(input: Any, other: Any, *, out: Any = None) -> Any:
    """``sqrt(input ** 2 + other ** 2)``, without overflow."""
    if out is not None:
        return _out_args.write_out("hypot", hypot, (input, other), {}, out)
    if type(other) is not type(input) or not is_tensor(input):
        check_tensors("hypot", input, other)
    return _binary("hypot", input, other)


def exp2(input: Any, *, out: Any = None) -> Any:
    """``2 ** input``."""
    if out is not None:
        return _out_args.write_out("exp2", exp2, (input,), {}, out)
    return backend_of(input).ops.exp2(input)


def logaddexp(input: Any, other: Any, *, out: Any = None) -> Any:
    """``log(exp(input) + exp(other))``, computed stably."""
    if out is not None:
        return _out_args.write_out("logaddexp", logaddexp, (input, other), {}, out)
    if type(other) is not type(input) or not is_tensor(input):
        check_tensors("logaddexp", input, other)
    return _binary("logaddexp", input, other)


def sgn(input: Any, *, out: Any = None) -> Any:
    """The sign (``sign`` for real tensors), with a zero gradient; a bool tensor is its own
    sign, as torch's."""
    if out is not None:
        return _out_args.write_out("sgn", sgn, (input,), {}, out)
    if input.dtype is bool_:
        return input.clone()
    return backend_of(input).ops.sgn(input)


def nan_to_num(input: Any, nan: float = 0.0, posinf: Optional[float] = None,
               neginf: Optional[float] = None, *, out: Any = None) -> Any:
    """NaN, +inf and -inf replaced by ``nan``, ``posinf``, ``neginf`` (default: the dtype's
    largest and lowest finite values)."""
    if out is not None:
        return _out_args.write_out("nan_to_num", nan_to_num, (input, nan, posinf, neginf), {}, out)
    return backend_of(input).ops.nan_to_num(
        input, float(nan), None if posinf is None else float(posinf),
        None if neginf is None else float(neginf))


# -- interpolation and fused multiply-adds ---------------------------------------------------


def lerp(input: Any, end: Any, weight: Any, *, out: Any = None) -> Any:
    """``input + weight * (end - input)``; a tensor ``weight`` is differentiated too."""
    if out is not None:
        return _out_args.write_out("lerp", lerp, (input, end, weight), {}, out)
    ops = backend_of(input).ops
    dtype_checks.check_lerp(input, end, weight)
    if is_tensor(weight):
        return ops.lerp_tensor(input, end, weight)
    return ops.lerp(input, end, float(weight))


def addcmul(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1, out: Any = None) -> Any:
    """``input + value * tensor1 * tensor2``."""
    if out is not None:
        return _out_args.write_out("addcmul", addcmul, (input, tensor1, tensor2),
                                   {"value": value}, out)
    if input.dtype.kind in "iu" and tensor1.dtype.kind in "iu" and tensor2.dtype.kind in "iu":
        # Note [Integral coefficients] in linalg.py
        return input + tensor1 * tensor2 * int(value)
    return backend_of(input).ops.addcmul(input, tensor1, tensor2, value)


def addcdiv(input: Any, tensor1: Any, tensor2: Any, *, value: Any = 1, out: Any = None) -> Any:
    """``input + value * tensor1 / tensor2``."""
    if out is not None:
        return _out_args.write_out("addcdiv", addcdiv, (input, tensor1, tensor2),
                                   {"value": value}, out)
    if input.dtype.kind in "iub" and tensor1.dtype.kind in "iub" and (
            tensor2.dtype.kind in "iub"):
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a "
                           "future release addcdiv will perform a true division of tensor1 "
                           "and tensor2. The historic addcdiv behavior can be implemented as "
                           "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) "
                           "for integer inputs and as (input + value * tensor1 / tensor2) for "
                           "float inputs. The future addcdiv behavior is just the latter "
                           "implementation: (input + value * tensor1 / tensor2), for all "
                           "dtypes.")
    return backend_of(input).ops.addcdiv(input, tensor1, tensor2, value)


# -- special functions (also transgrad.special) ----------------------------------------------


def erfc(input: Any, *, out: Any = None) -> Any:
    """The complementary error function ``1 - erf(input)``."""
    if out is not None:
        return _out_args.write_out("erfc", erfc, (input,), {}, out)
    return backend_of(input).ops.erfc(input)


def erfinv(input: Any, *, out: Any = None) -> Any:
    """The inverse error function (on (-1, 1))."""
    if out is not None:
        return _out_args.write_out("erfinv", erfinv, (input,), {}, out)
    return backend_of(input).ops.erfinv(input)


def hardshrink(input: Any, lambd: float = 0.5, *, out: Any = None) -> Any:
    """``input`` where ``|input| > lambd``, else 0 (the formula of nn.functional.hardshrink)."""
    if out is not None:
        return _out_args.write_out("hardshrink", hardshrink, (input, lambd), {}, out)
    return backend_of(input).ops.hardshrink(input, float(lambd))


def lgamma(input: Any, *, out: Any = None) -> Any:
    """The log of the absolute value of the gamma function."""
    if out is not None:
        return _out_args.write_out("lgamma", lgamma, (input,), {}, out)
    return backend_of(input).ops.lgamma(input)


def digamma(input: Any, *, out: Any = None) -> Any:
    """The derivative of lgamma."""
    if out is not None:
        return _out_args.write_out("digamma", digamma, (input,), {}, out)
    return backend_of(input).ops.digamma(input)


def polygamma(n: int, input: Any, *, out: Any = None) -> Any:
    """The n-th derivative of digamma."""
    if out is not None:
        return _out_args.write_out("polygamma", polygamma, (n, input), {}, out)
    if int(n) < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return backend_of(input).ops.polygamma(int(n), input)


def logit(input: Any, eps: Optional[float] = None, *, out: Any = None) -> Any:
    """``log(p / (1 - p))``, with p = input clamped to [eps, 1 - eps] when ``eps`` is given
    (an integer or bool input in the default dtype, as torch's)."""
    if out is not None:
        return _out_args.write_out("logit", logit, (input, eps), {}, out)
    if not is_floating_or_complex(input.dtype):  # before the formula's 1 - p (uint8 wraps)
        input = cast(input, backend_of(input).default_dtype)
    return backend_of(input).ops.logit(input, None if eps is None else float(eps))


def xlogy(input: Any, other: Any, *, out: Any = None) -> Any:
    """``input * log(other)``, 0 where input is 0 (unless other is NaN)."""
    if out is not None:
        return _out_args.write_out("xlogy", xlogy, (input, other), {}, out)
    return _binary("xlogy", input, other)


# -- composites of torch's table with no formula of their own ---------------------------------


def clamp_min(input: Any, min: Any, *, out: Any = None) -> Any:  # noqa: A002
    """``input`` limited from below by ``min`` (a number or a tensor)."""
    if out is not None:
        return _out_args.write_out("clamp_min", clamp_min, (input, min), {}, out)
    return clamp(input, min=min)


def clamp_max(input: Any, max: Any, *, out: Any = None) -> Any:  # noqa: A002
    """``input`` limited from above by ``max`` (a number or a tensor)."""
    if out is not None:
        return _out_args.write_out("clamp_max", clamp_max, (input, max), {}, out)
    return clamp(input, max=max)


def deg2rad(input: Any, *, out: Any = None) -> Any:
    """Degrees to radians."""
    if out is not None:
        return _out_args.write_out("deg2rad", deg2rad, (input,), {}, out)
    return mul(input, math.pi / 180.0)


def rad2deg(input: Any, *, out: Any = None) -> Any:
    """Radians to degrees."""
    if out is not None:
        return _out_args.write_out("rad2deg", rad2deg, (input,), {}, out)
    return mul(input, 180.0 / math.pi)


def frac(input: Any, *, out: Any = None) -> Any:
    """The fractional part ``input - trunc(input)`` (gradient 1, as torch)."""
    if out is not None:
        return _out_args.write_out("frac", frac, (input,), {}, out)
    return backend_of(input).ops.sub(input, trunc(input))


def logaddexp2(input: Any, other: Any, *, out: Any = None) -> Any:
    """``log2(2 ** input + 2 ** other)``, computed stably (logaddexp in base e, rescaled)."""
    if out is not None:
        return _out_args.write_out("logaddexp2", logaddexp2, (input, other), {}, out)
    x, other = _pair(input, other)
    ln2 = math.log(2.0)
    return mul(logaddexp(mul(x, ln2), mul(other, ln2)), 1.0 / ln2)


def rsub(input: Any, other: Any, *, alpha: Any = 1) -> Any:
    """``other - alpha * input`` (sub with its operands swapped); recorded as torch's
    RsubBackward0 (a tensor ``other``) or RsubBackward1 (a number) when ``alpha`` is 1."""
    if not is_tensor(input):
        check_tensor_first("rsub", input, other)
    if alpha == 1 and is_tensor(input) and input.dtype.is_floating_point:
        if is_tensor(other):
            return backend_of(input).ops.rsub(input, other)
        if type(other) in (int, float):
            return backend_of(input).ops.rsub_scalar(input, float(other))
    return sub(other, input, alpha=alpha)


# PyTorch's numpy-style spellings.
arcsinh, arccosh, arctanh, arcsin, arccos, arctan, arctan2 = (
    asinh, acosh, atanh, asin, acos, atan, atan2)
