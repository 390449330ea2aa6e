"""PyTorch's legacy typed tensor classes: ``FloatTensor``, ``DoubleTensor``, ``LongTensor``,
``BoolTensor`` (and the others of the dtypes an engine has), and ``Tensor.type()``.

Input: an engine's factories. Output: one class per dtype for that engine, as old programs use
them: ``FloatTensor(2, 3)`` makes an uninitialised 2x3 float32 tensor, ``LongTensor([1, 2])``
one from data, ``FloatTensor()`` an empty one, and ``isinstance(x, FloatTensor)`` asks for a
float32 tensor of the engine. ``x.type()`` names the class (``"torch.FloatTensor"``: the
string torch programs compare with), and ``x.type("torch.DoubleTensor")`` or
``x.type(DoubleTensor)`` casts.
"""

from __future__ import annotations

from typing import Any, Dict

import numpy as np

from transgrad._api import functions as fn

# torch's legacy class name of each dtype
CLASS_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "int64": "LongTensor",
               "bool": "BoolTensor", "int32": "IntTensor", "int16": "ShortTensor",
               "int8": "CharTensor", "uint8": "ByteTensor", "float16": "HalfTensor",
               "bfloat16": "BFloat16Tensor"}
_DTYPE_OF_CLASS = {name: dtype for dtype, name in CLASS_NAMES.items()}


class _TypedTensorMeta(type):
    """The metaclass of the typed classes: calling one makes a tensor, ``isinstance`` checks
    the engine and the dtype."""

    _factories: Any
    _dtype: str

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        f = cls._factories
        device = kwargs.pop("device", None)
        if kwargs:
            raise TypeError(f"{cls.__name__}(): got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if not args:
            return f.empty(0, dtype=cls._dtype, device=device)
        if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
            return f.empty(*args, dtype=cls._dtype, device=device)
        if len(args) == 1 and isinstance(args[0], Size):
            return f.empty(*args[0], dtype=cls._dtype, device=device)
        if len(args) == 1:
            return f.tensor(args[0], dtype=cls._dtype, device=device)
        raise TypeError(f"{cls.__name__}() received an invalid combination of arguments - "
                        "expected sizes (int, ...) or data (a sequence, an array, a tensor)")

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls._factories._backend.Tensor) and obj.dtype.name == cls._dtype

    def __repr__(cls) -> str:
        return f"<class 'transgrad.{cls.__name__}'>"


def typed_classes(factories: Any, dtypes: Any) -> Dict[str, type]:
    """The legacy class of each dtype in ``dtypes`` (names) for the engine of ``factories``."""
    return {CLASS_NAMES[d]: _TypedTensorMeta(CLASS_NAMES[d], (), {
        "_factories": factories, "_dtype": d,
        "__doc__": f"A {d} tensor of this engine, as torch's legacy ``{CLASS_NAMES[d]}``: "
                   f"``{CLASS_NAMES[d]}(2, 3)`` (uninitialised), ``{CLASS_NAMES[d]}(data)``."})
        for d in dtypes if d in CLASS_NAMES}


class Size(tuple):
    """A tensor's shape as torch names it: a tuple of ints that prints as
    ``torch.Size([2, 3])`` and equals the plain tuple ``(2, 3)``; ``numel()`` is its product.
    (``x.shape`` itself is a plain tuple in transgrad, equal to the ``Size``.)"""

    def __new__(cls, sizes: Any = ()) -> "Size":
        values = tuple(sizes)
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"torch.Size() takes an iterable of 'int' (item "
                                f"{values.index(v)} is '{type(v).__name__}')")
        return super().__new__(cls, (int(v) for v in values))

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def numel(self) -> int:
        n = 1
        for v in self:
            n *= v
        return n

    def __getitem__(self, key: Any) -> Any:
        out = super().__getitem__(key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other: Any) -> "Size":
        return Size(tuple(self) + tuple(other))


def typename(obj: Any) -> str:
    """The type name torch gives ``obj``: a tensor's legacy class (``"torch.FloatTensor"``),
    else the qualified name of its Python type."""
    from transgrad._backend import is_tensor

    if is_tensor(obj):
        return type_(obj)
    t = type(obj)
    return t.__qualname__ if t.__module__ in ("builtins", "__builtin__") else \
        f"{t.__module__}.{t.__qualname__}"


def type_(self: Any, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
    """Without ``dtype``: the legacy type name (``"torch.FloatTensor"``); with one (a dtype, a
    legacy class or its name): ``self`` cast to it (``self`` itself when it already is)."""
    if dtype is None:
        return "torch." + CLASS_NAMES.get(self.dtype.name, self.dtype.name)
    if isinstance(dtype, _TypedTensorMeta):
        dtype = dtype._dtype
    elif isinstance(dtype, str) and dtype.rsplit(".", 1)[-1] in _DTYPE_OF_CLASS:
        dtype = _DTYPE_OF_CLASS[dtype.rsplit(".", 1)[-1]]
    elif isinstance(dtype, str) and dtype.startswith("torch."):
        raise ValueError(f"invalid type: '{dtype}'")
    if np.dtype(dtype) == self.dtype.dtype:
        return self
    return fn.cast(self, dtype)
