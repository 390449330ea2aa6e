"""Dtypes: the ``dtype`` class and its instances, and the one function that canonicalises a
dtype argument; type promotion (Note [Type promotion]).

Input: whatever a user passes as ``dtype=`` (a ``transgrad.dtype``, a numpy dtype or scalar type,
a name such as "float64", the Python types ``float``/``int``/``bool``, a tensor's ``.dtype``).
Output: one of the ``dtype`` instances below (``float32``, ``int64``, ...); ``t.dtype`` of either
engine is one of them.

Invariant: every dtype argument of the API, of both engines, goes through ``as_dtype``; a value
that is no dtype raises torch's ``TypeError`` ("argument 'dtype' must be torch.dtype, not X"),
a dtype we do not support a TypeError naming the supported ones. There is exactly one ``dtype``
object per supported dtype (an alias is the same object), so ``is`` compares them.
"""

from __future__ import annotations

import builtins
from typing import Any

import ml_dtypes
import numpy as np

# Note [dtype objects and numpy]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A ``transgrad.dtype`` is torch's ``torch.dtype``: printed ``torch.float32``, with torch's
# attributes (is_floating_point, is_complex, is_signed, itemsize, to_real(), to_complex(),
# abbr), one instance per dtype, immutable, pickled by name. Two deliberate extensions keep
# numpy code working:
# * ``.dtype`` holds the numpy dtype, which numpy's own dtype conversion reads, so
#   ``np.dtype(tg.float32)``, ``np.zeros(3, dtype=tg.float32)`` and ``a.astype(tg.int8)`` work;
#   numpy's descriptive attributes (``name``, ``kind``, ``char``, ``str``, ``type``) are there
#   too, for code that inspects a tensor's dtype as numpy's.
# * it compares equal to (and hashes like) its numpy dtype and numpy scalar type, so
#   ``t.dtype == np.float32`` holds and a dict keyed by numpy dtypes finds it. It is never equal
#   to a string or a Python type (torch's dtype is not).
# Internal code passes ``d.dtype`` (not ``d``) to numpy on hot paths: numpy's conversion of an
# object with a ``.dtype`` attribute costs about 0.1 us more per call.


class _Dtype:
    """A tensor element type, as ``torch.dtype``: ``transgrad.float32`` prints as
    ``torch.float32``. Also usable wherever numpy takes a dtype, and equal to the numpy dtype
    it stands for (Note [dtype objects and numpy]: a deliberate extension of torch's class)."""

    __slots__ = ("dtype", "name", "kind", "char", "str", "type", "itemsize",
                 "is_floating_point", "is_complex", "is_signed", "abbr", "_hash")

    dtype: np.dtype
    name: builtins.str
    kind: builtins.str
    char: builtins.str
    str: builtins.str
    type: builtins.type
    itemsize: builtins.int
    is_floating_point: builtins.bool
    is_complex: builtins.bool
    is_signed: builtins.bool
    abbr: builtins.str
    _hash: builtins.int

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("cannot create 'torch.dtype' instances")

    @classmethod
    def _make(cls, numpy_dtype: np.dtype, abbr: builtins.str) -> _Dtype:
        d = object.__new__(cls)
        for attr in ("name", "kind", "char", "str", "type", "itemsize"):
            object.__setattr__(d, attr, getattr(numpy_dtype, attr))
        fields = {"dtype": numpy_dtype, "abbr": abbr, "_hash": hash(numpy_dtype),
                  "is_complex": numpy_dtype.kind == "c",
                  "is_floating_point": numpy_dtype.kind == "f" or abbr == "bf16",
                  "is_signed": numpy_dtype.kind not in "bu"}
        for attr, value in fields.items():
            object.__setattr__(d, attr, value)
        return d

    def __setattr__(self, name: builtins.str, value: Any) -> None:
        raise AttributeError(f"attribute '{name}' of 'torch.dtype' objects is not writable")

    def __repr__(self) -> builtins.str:
        return "torch." + self.name

    __str__ = __repr__

    def __hash__(self) -> builtins.int:
        return self._hash

    def __eq__(self, other: Any) -> builtins.bool:
        if other is self:
            return True
        if isinstance(other, _Dtype):
            return False
        if isinstance(other, np.dtype) or (isinstance(other, builtins.type)
                                           and issubclass(other, np.generic)):
            return builtins.bool(self.dtype == other)
        return NotImplemented

    def __ne__(self, other: Any) -> builtins.bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __reduce__(self) -> builtins.str:
        return self.name  # the global transgrad._dtypes.<name>: by name, as torch's

    def to_real(self) -> _Dtype:
        """The dtype of a complex dtype's parts (complex128 -> float64); any other, itself."""
        return float64 if self is complex128 else self

    def to_complex(self) -> _Dtype:
        """The complex dtype whose parts have this floating dtype (float64 -> complex128)."""
        if self is float64 or self is complex128:
            return complex128
        if self.is_floating_point:
            raise RuntimeError(f"torch.{self.name}.to_complex(): transgrad has no complex dtype "
                               f"with {self.name} parts (complex128 is its only complex dtype)")
        raise RuntimeError(f"Unknown Complex ScalarType for {_TORCH_SCALAR_NAMES[self.name]}")


# torch's class name (``transgrad.dtype``, printed <class 'transgrad._dtypes.dtype'>); the class is
# written as _Dtype so that its attribute ``dtype`` (the numpy dtype) does not shadow it in the
# annotations of its own body.
_Dtype.__name__ = _Dtype.__qualname__ = "dtype"
dtype = _Dtype

_TORCH_SCALAR_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
                       "int32": "Int", "int64": "Long"}

float32 = dtype._make(np.dtype("float32"), "f32")
float64 = dtype._make(np.dtype("float64"), "f64")
float16 = dtype._make(np.dtype("float16"), "f16")
# numpy has no bfloat16; ml_dtypes (the JAX team's numpy extension types) provides it, and both
# engines store it as that numpy dtype (so np.asarray(t) of a bfloat16 tensor is exact).
bfloat16 = dtype._make(np.dtype(ml_dtypes.bfloat16), "bf16")
int8 = dtype._make(np.dtype("int8"), "i8")
int16 = dtype._make(np.dtype("int16"), "i16")
int32 = dtype._make(np.dtype("int32"), "i32")
int64 = dtype._make(np.dtype("int64"), "i64")
uint8 = dtype._make(np.dtype("uint8"), "u8")
bool_ = dtype._make(np.dtype("bool"), "b8")
complex128 = dtype._make(np.dtype("complex128"), "c128")
SUPPORTED = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
             complex128)
# A supported numpy dtype -> its dtype object (a dtype object finds itself: they are equal).
_BY_NUMPY: dict = {d.dtype: d for d in SUPPORTED}
_PYTHON_TYPES = {builtins.float: float64, builtins.int: int64, builtins.bool: bool_,
                 builtins.complex: complex128}
# numpy's dtypes of the supported ones, compared at C speed (a dtype object's __eq__ and __hash__
# are Python calls: hot checks of numpy dtypes use these sets, of dtype objects their attributes)
NUMPY_SUPPORTED = frozenset(_BY_NUMPY)
_FLOATING = frozenset(d.dtype for d in (float16, bfloat16, float32, float64))
_INTEGRAL = frozenset(d.dtype for d in (uint8, int8, int16, int32, int64))


def of_array(a: np.ndarray) -> _Dtype:
    """The dtype object of a numpy array of a supported dtype (KeyError otherwise)."""
    return _BY_NUMPY[a.dtype]


def of_numpy(d: np.dtype) -> _Dtype:
    """The dtype object of a supported numpy dtype (KeyError otherwise)."""
    return _BY_NUMPY[d]


def is_floating(dtype: Any) -> builtins.bool:
    """A real floating dtype (bfloat16 included: its numpy kind is "V", not "f")."""
    if type(dtype) is _Dtype:
        return dtype.is_floating_point
    return dtype in _FLOATING


def is_floating_or_complex(dtype: Any) -> builtins.bool:
    """The dtypes that can require gradients, as torch's."""
    if type(dtype) is _Dtype:
        return dtype.is_floating_point or dtype.is_complex
    return dtype in _FLOATING or dtype == complex128.dtype


def is_integral(dtype: Any) -> builtins.bool:
    """uint8, int8, int16, int32 or int64 (bool excluded, as torch's is_integral(False))."""
    if type(dtype) is _Dtype:
        return dtype.dtype in _INTEGRAL
    return dtype in _INTEGRAL


def as_dtype(dtype: Any, where: str = "") -> _Dtype:
    """``dtype`` as a supported dtype object; ``where`` names the caller in the message (as
    torch: "zeros(): argument 'dtype' must be torch.dtype, not str")."""
    if type(dtype) is _Dtype:  # the common case, first
        return dtype
    try:
        d = _BY_NUMPY.get(dtype)  # a numpy dtype
    except TypeError:  # unhashable: no dtype
        d = None
    if d is not None:
        return d
    if isinstance(dtype, type) and dtype in _PYTHON_TYPES:
        return _PYTHON_TYPES[dtype]
    try:
        npd = np.dtype(dtype) if dtype is not None else None
    except TypeError:
        npd = None
    if npd is None:
        prefix = f"{where}(): " if where else ""
        raise TypeError(f"{prefix}argument 'dtype' must be torch.dtype, not "
                        f"{type(dtype).__name__} (transgrad dtypes: {_NAMES})")
    d = _BY_NUMPY.get(npd)
    if d is None:
        raise TypeError(f"unsupported dtype {npd}: use one of {_NAMES}")
    return d


_NAMES = ", ".join(d.name for d in SUPPORTED)


def canonical(a: np.ndarray) -> np.ndarray:
    """Map a numpy array onto a supported dtype (uint16/32/64 -> int64, longdouble -> float64)."""
    d = a.dtype
    if d in _BY_NUMPY:
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
# bfloat16 needs float32. The operands of an op are weighed as torch's result_type, in three
# tiers: tensors with dims, then 0-d tensors, then wrapped numbers (a Python number next to a
# tensor); a lower tier only counts when its category is higher than the higher tiers' (then
# promote_types of the two: int tensor + 0-d float64 tensor is float64, float32 tensor * 0-d
# float64 tensor stays float32). Both engines' binary kernels apply this rule themselves
# (``binary_result_type`` here and in the reference kernels, ``result_type`` in
# csrc/tensor/tensor.cpp), reading the tier off the operands: ``ndim``, and the wrapped-number
# flag that only ``scalar_tensor`` (Python) and ``kernel::scalar_like`` (C++) set.
# A wrapped number's dtype is chosen by ``scalar_dtype``: next to a floating tensor, that
# tensor's compute dtype (float32 for float16/bfloat16, so ``half * 1.1`` multiplies by 1.1 in
# float32 as torch does, instead of by 1.1 rounded to half); next to a bool or integer tensor,
# bool for a bool, int64 for an int (exact: a kernel casts it to the result dtype, wrapping as
# torch's: int8 + 300 == int8 + 44) and the engine's default dtype for a float, so
# ``arange(3) * 0.5`` is float32, or float64 after ``set_default_dtype(float64)``.

_CATEGORY = {bool_: 0, uint8: 1, int8: 1, int16: 1, int32: 1, int64: 1, float16: 2,
             bfloat16: 2, float32: 2, float64: 2, complex128: 3}


def _promote(a: dtype, b: dtype) -> dtype:
    if a is b:
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


def promote_types(type1: Any, type2: Any) -> dtype:
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


def binary_result_type(a: dtype, a_tier: builtins.int, b: dtype,
                       b_tier: builtins.int) -> dtype:
    """The result dtype of an elementwise op on two operands of dtypes ``a`` and ``b``, each in
    its tier: 0 a tensor with dims, 1 a 0-d tensor, 2 a wrapped number (Note [Type
    promotion])."""
    if a is b:
        return a
    if a_tier == b_tier:
        return _promote(a, b)
    return _combine(a, b) if a_tier < b_tier else _combine(b, a)


def scalar_dtype(value: Any, like: dtype, default_float: dtype) -> dtype:
    """The dtype of the wrapped number made of the Python number ``value`` next to a tensor of
    dtype ``like`` (Note [Type promotion])."""
    if isinstance(value, (builtins.bool, np.bool_)):
        return bool_  # even next to a float: torch's float - True is a bool-tensor error
    if isinstance(value, (builtins.complex, np.complexfloating)):
        return complex128
    if is_floating(like):
        return float32 if like.itemsize == 2 else like
    if like is complex128:
        return complex128
    if isinstance(value, (builtins.int, np.integer)):
        return int64
    return default_float


def result_type(*operands: Any, default_float: Any = None) -> dtype:
    """The dtype of an op on ``operands`` (tensors, 0-d tensors, Python numbers), as torch's
    ``result_type`` (Note [Type promotion]); ``default_float`` is the default dtype (by default
    the default dtype of the engine of the first tensor among ``operands``)."""
    if default_float is None:
        from transgrad._backend import find_backend  # imports no engine

        backend = find_backend(operands)
        default_float = getattr(backend, "default_dtype", float32)
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
cdouble = complex128
__all__ = ["bfloat16", "bool", "can_cast", "cdouble", "complex128", "double", "dtype", "finfo",
           "float", "float16",
           "float32", "float64", "half", "iinfo", "int", "int8", "int16", "int32", "int64",
           "long", "promote_types", "result_type", "short", "uint8"]
