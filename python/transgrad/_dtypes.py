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

import numpy as np

float32 = np.dtype("float32")
float64 = np.dtype("float64")
int64 = np.dtype("int64")
bool_ = np.dtype("bool")
complex128 = np.dtype("complex128")
SUPPORTED = (bool_, int64, float32, float64, complex128)
_PYTHON_TYPES = {builtins.float: float64, builtins.int: int64, builtins.bool: bool_,
                 builtins.complex: complex128}


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
                            f"{type(dtype).__name__} (transgrad dtypes: float32, float64, "
                            "int64, bool, complex128)")
    if d not in SUPPORTED:
        raise TypeError(f"unsupported dtype {d}: use float32, float64, int64 or bool")
    return d


def canonical(a: np.ndarray) -> np.ndarray:
    """Map a numpy array onto a supported dtype (int32 -> int64, float16 -> float32)."""
    d = a.dtype
    if d in SUPPORTED:
        return a
    if d.kind in "iu":
        return a.astype(int64)
    if d.kind == "f":
        return a.astype(float32 if d.itemsize < 8 else float64)
    if d.kind == "c":
        return a.astype(complex128)
    raise TypeError(f"cannot make a tensor from data of dtype {d}")


# The dtype names both engines export, as torch: tg.float32, tg.float (float32), tg.double
# (float64), tg.long (int64), tg.bool. Nothing below this line may use the builtins of these names.
float = float32  # noqa: A001
double = float64
long = int64
bool = bool_  # noqa: A001
__all__ = ["bool", "complex128", "double", "float", "float32", "float64", "int64", "long"]
