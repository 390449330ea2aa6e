"""Dtypes: the supported ones and the one function that canonicalises a dtype argument.

Input: whatever a user passes as ``dtype=`` (a numpy dtype or scalar type, a name such as
"float64", the Python types ``float``/``int``/``bool``, a tensor's ``.dtype``). Output: one of
the supported numpy dtype objects (``float32 == np.float32`` holds, ``t.dtype`` is one).

Invariant: every dtype argument of the API, of both engines, goes through ``as_dtype``; a value
that is no dtype raises torch's ``TypeError`` ("argument 'dtype' must be torch.dtype, not X"),
a dtype we do not support a TypeError naming the supported ones.
"""

from __future__ import annotations

import builtins
from typing import Any

import ml_dtypes
import numpy as np

float32 = np.dtype("float32")
float64 = np.dtype("float64")
float16 = np.dtype("float16")
# numpy has no bfloat16; ml_dtypes (the JAX team's numpy extension types) provides it, and both
# engines store it as that numpy dtype (so np.asarray(t) of a bfloat16 tensor is exact).
bfloat16 = np.dtype(ml_dtypes.bfloat16)
int8 = np.dtype("int8")
int16 = np.dtype("int16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
uint8 = np.dtype("uint8")
bool_ = np.dtype("bool")
complex128 = np.dtype("complex128")
SUPPORTED = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
             complex128)
_PYTHON_TYPES = {builtins.float: float64, builtins.int: int64, builtins.bool: bool_,
                 builtins.complex: complex128}
_FLOATING = frozenset((float16, bfloat16, float32, float64))
_INTEGRAL = frozenset((uint8, int8, int16, int32, int64))


def is_floating(dtype: np.dtype) -> builtins.bool:
    """A real floating dtype (bfloat16 included: its numpy kind is "V", not "f")."""
    return dtype in _FLOATING


def is_floating_or_complex(dtype: np.dtype) -> builtins.bool:
    """The dtypes that can require gradients, as torch's."""
    return dtype in _FLOATING or dtype == complex128


def is_integral(dtype: np.dtype) -> builtins.bool:
    """uint8, int8, int16, int32 or int64 (bool excluded, as torch's is_integral(False))."""
    return dtype in _INTEGRAL


def as_dtype(dtype: Any, where: str = "") -> np.dtype:
    """``dtype`` as a supported numpy dtype; ``where`` names the caller in the message (as torch:
    "zeros(): argument 'dtype' must be torch.dtype, not str")."""
    if isinstance(dtype, np.dtype) and dtype in SUPPORTED:  # the common case, first
        return dtype
    d = _PYTHON_TYPES.get(dtype) if isinstance(dtype, type) else None
    if d is None:
        try:
            d = np.dtype(dtype) if dtype is not None else None
        except TypeError:
            d = None
        if d is None:
            prefix = f"{where}(): " if where else ""
            raise TypeError(f"{prefix}argument 'dtype' must be torch.dtype, not "
                            f"{type(dtype).__name__} (transgrad dtypes: {_NAMES})")
    if d not in SUPPORTED:
        raise TypeError(f"unsupported dtype {d}: use one of {_NAMES}")
    return d


_NAMES = ", ".join(d.name for d in SUPPORTED)


def canonical(a: np.ndarray) -> np.ndarray:
    """Map a numpy array onto a supported dtype (uint16/32/64 -> int64, longdouble -> float64)."""
    d = a.dtype
    if d in SUPPORTED:
        return a
    if d.kind in "iu":
        return a.astype(int64)
    if d.kind == "f":
        return a.astype(float64)
    if d.kind == "c":
        return a.astype(complex128)
    raise TypeError(f"cannot make a tensor from data of dtype {d}")


# ---- promotion, as torch's (Note [Type promotion]) ------------------------------------------
#
# Note [Type promotion]
# ~~~~~~~~~~~~~~~~~~~~~
# Two dtypes promote by category first (bool < integral < floating < complex), then by size:
# uint8 with a signed integer needs the next signed size (uint8 + int8 -> int16), float16 with
# bfloat16 needs float32. Operands of an expression are weighed as torch's result_type: tensors
# with dims decide; a 0-d tensor, then a Python number, only counts when its category is higher
# than the dimensioned ones' (a Python float is then the default dtype, float32; an int is
# int64). The C++ core has the same dtype lattice (csrc/tensor/tensor.cpp, promote_types).

_CATEGORY = {bool_: 0, uint8: 1, int8: 1, int16: 1, int32: 1, int64: 1, float16: 2,
             bfloat16: 2, float32: 2, float64: 2, complex128: 3}


def _promote(a: np.dtype, b: np.dtype) -> np.dtype:
    if a == b:
        return a
    ca, cb = _CATEGORY[a], _CATEGORY[b]
    if ca != cb:
        return a if ca > cb else b
    if ca == 2 and {a, b} == {float16, bfloat16}:
        return float32
    if ca == 1 and uint8 in (a, b):
        other = b if a == uint8 else a
        return int16 if other == int8 else other
    return a if a.itemsize >= b.itemsize else b


def promote_types(type1: Any, type2: Any) -> np.dtype:
    """The smallest dtype both ``type1`` and ``type2`` cast to without losing category."""
    return _promote(as_dtype(type1, "promote_types"), as_dtype(type2, "promote_types"))


def can_cast(from_: Any, to: Any) -> builtins.bool:
    """As torch's: False exactly when the cast lowers the category (float -> int, int -> bool)."""
    return _CATEGORY[as_dtype(from_, "can_cast")] <= _CATEGORY[as_dtype(to, "can_cast")]


def _combine(higher: Any, lower: Any) -> Any:
    """A priority group's dtype (``higher``) over a lower group's: the lower one only counts
    when its category is higher (torch's combine_categories)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    ch, cl = _CATEGORY[higher], _CATEGORY[lower]
    if ch == 3 or cl <= ch:
        return higher
    if cl == 3 and ch == 2:
        return complex128
    if cl == 3:
        return lower
    if ch == 0 or cl == 2:
        return lower if cl > ch else _promote(higher, lower)
    return higher


def result_type(*operands: Any, default_float: np.dtype = float32) -> np.dtype:
    """The dtype of an op on ``operands`` (tensors, 0-d tensors, Python numbers), as torch's
    ``result_type`` (Note [Type promotion]); ``default_float`` is the default dtype."""
    groups: list = [None, None, None]  # dimensioned tensors, 0-d tensors, Python numbers
    for x in operands:
        d = getattr(x, "dtype", None)
        if d is not None and hasattr(x, "ndim") and not isinstance(x, np.generic):
            g, d = (0 if x.ndim > 0 else 1), as_dtype(d)
        elif isinstance(x, (builtins.bool, np.bool_)):
            g, d = 2, bool_
        elif isinstance(x, (builtins.int, np.integer)):
            g, d = 2, int64
        elif isinstance(x, (builtins.float, np.floating)):
            g, d = 2, default_float
        elif isinstance(x, (builtins.complex, np.complexfloating)):
            g, d = 2, complex128
        else:
            raise TypeError(f"result_type(): argument must be a Tensor or a Number, not "
                            f"{type(x).__name__}")
        groups[g] = d if groups[g] is None else _promote(groups[g], d)
    out = _combine(groups[0], _combine(groups[1], groups[2]))
    if out is None:
        raise TypeError("result_type(): expected at least one Tensor or Number")
    return out


# ---- finfo / iinfo ----------------------------------------------------------------------------


class finfo:  # noqa: N801  (torch's name)
    """Machine limits of a floating dtype, with torch's fields: bits, eps, max, min, tiny,
    smallest_normal, resolution, dtype (a name, as torch's)."""

    def __init__(self, type: Any = None) -> None:  # noqa: A002  (torch's parameter name)
        d = float32 if type is None else as_dtype(type, "finfo")
        if not is_floating(d):
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        info = ml_dtypes.finfo(d) if d == bfloat16 else np.finfo(d)
        self.bits: builtins.int = d.itemsize * 8
        self.eps: builtins.float = builtins.float(info.eps)
        self.max: builtins.float = builtins.float(info.max)
        self.min: builtins.float = builtins.float(info.min)
        self.tiny: builtins.float = builtins.float(info.smallest_normal)
        self.smallest_normal: builtins.float = self.tiny
        self.resolution: builtins.float = 10.0 ** -builtins.int(info.precision)
        self.dtype: str = d.name

    def __eq__(self, other: Any) -> builtins.bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> builtins.int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:  # noqa: N801  (torch's name)
    """Limits of an integer dtype, fields bits, max, min, dtype."""

    def __init__(self, type: Any) -> None:  # noqa: A002
        d = as_dtype(type, "iinfo")
        if d == bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if is_floating_or_complex(d):
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        self.bits: builtins.int = d.itemsize * 8
        self.min: builtins.int = builtins.int(np.iinfo(d).min)
        self.max: builtins.int = builtins.int(np.iinfo(d).max)
        self.dtype: str = d.name

    def __eq__(self, other: Any) -> builtins.bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> builtins.int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


# The dtype names both engines export, as torch: tg.float32, tg.float (float32), tg.double
# (float64), tg.half (float16), tg.long (int64), tg.int (int32), tg.short (int16), tg.bool.
# Nothing below this line may use the builtins of these names.
float = float32  # noqa: A001
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16
bool = bool_  # noqa: A001
__all__ = ["bfloat16", "bool", "can_cast", "complex128", "double", "finfo", "float", "float16",
           "float32", "float64", "half", "iinfo", "int", "int8", "int16", "int32", "int64",
           "long", "promote_types", "result_type", "short", "uint8"]
