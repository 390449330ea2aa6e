"""Elementwise tests with boolean results: ``isclose``, ``isreal``, ``isneginf``, ``isposinf``,
``signbit``; and ``is_nonzero`` of a one-element tensor.

Input: tensors (or a number beside a tensor) of either engine. Output: bool tensors of that
engine, computed in numpy; never differentiable (torch's results are bool). Broadcasting,
defaults and errors are torch's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from transgrad._api import out_args as _out_args
from transgrad._api.inplace import _TORCH_NAMES
from transgrad._backend import backend_of, find_backend, is_tensor

__all__ = ["isclose", "isreal", "isneginf", "isposinf", "signbit", "is_nonzero",
           "is_floating_point"]


def _values(t: Any) -> np.ndarray:
    return np.asarray(t.detach()) if is_tensor(t) else np.asarray(t)


def _bool(like: Any, a: Any) -> Any:
    return backend_of(like).from_numpy(np.asarray(np.asarray(a, dtype=bool), order="C"))


def isclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Any:
    """``|input - other| <= atol + rtol * |other|`` elementwise (infinities equal to themselves,
    NaNs equal only with ``equal_nan``)."""
    B = find_backend((input, other))
    if B is None:
        raise TypeError("isclose(): expected a Tensor among input and other")
    a, b = _values(input), _values(other)
    if is_tensor(input) and is_tensor(other) and a.dtype != b.dtype:
        raise RuntimeError(f"{_TORCH_NAMES[a.dtype.name]} did not match "
                           f"{_TORCH_NAMES[b.dtype.name]}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    if a.dtype == bool and b.dtype == bool:
        out = a == b
    else:
        out = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return B.from_numpy(np.asarray(out, order="C"))


def isreal(input: Any) -> Any:
    """True where the entry has no imaginary part (everywhere for real dtypes)."""
    return _bool(input, np.isreal(_values(input)))


def isneginf(input: Any, *, out: Any = None) -> Any:
    """True where the entry is negative infinity."""
    if out is not None:
        return _out_args.write_out("isneginf", isneginf, (input,), {}, out)
    return _bool(input, np.isneginf(_values(input)) if _values(input).dtype.kind == "f"
                 else np.zeros(tuple(input.shape), bool))


def isposinf(input: Any, *, out: Any = None) -> Any:
    """True where the entry is positive infinity."""
    if out is not None:
        return _out_args.write_out("isposinf", isposinf, (input,), {}, out)
    return _bool(input, np.isposinf(_values(input)) if _values(input).dtype.kind == "f"
                 else np.zeros(tuple(input.shape), bool))


def signbit(input: Any, *, out: Any = None) -> Any:
    """True where the sign bit is set (negative numbers, -0.0 and negative NaNs included)."""
    if out is not None:
        return _out_args.write_out("signbit", signbit, (input,), {}, out)
    return _bool(input, np.signbit(_values(input)))


def is_nonzero(input: Any) -> bool:
    """Whether a one-element tensor is nonzero (torch's errors for none or several)."""
    if input.numel == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if input.numel > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(_values(input).reshape(-1)[0] != 0)


def is_floating_point(input: Any) -> bool:
    """Whether ``input``'s dtype is a floating point one (float16, bfloat16, float32, float64)."""
    return input.is_floating_point()
