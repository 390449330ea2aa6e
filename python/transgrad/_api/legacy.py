"""PyTorch's legacy typed tensor classes: ``FloatTensor``, ``DoubleTensor``, ``LongTensor``,
``BoolTensor`` (and the others of the dtypes an engine has), and ``Tensor.type()``.

Input: an engine's factories. Output: one class per dtype for that engine, as old programs use
them: ``FloatTensor(2, 3)`` makes an uninitialised 2x3 float32 tensor, ``LongTensor([1, 2])``
one from data, ``FloatTensor()`` an empty one, and ``isinstance(x, FloatTensor)`` asks for a
float32 tensor of the engine. ``x.type()`` names the class (``"torch.FloatTensor"``: the
string torch programs compare with), and ``x.type("torch.DoubleTensor")`` or
``x.type(DoubleTensor)`` casts. ``legacy_new`` is the argument parser they share with the engines'
``Tensor(...)`` (Note [The legacy constructor]).
"""

from __future__ import annotations

from typing import Any, Dict

import numpy as np

from transgrad._api import functions as fn
from transgrad._size import Size

# torch's legacy class name of each dtype
CLASS_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "int64": "LongTensor",
               "bool": "BoolTensor", "int32": "IntTensor", "int16": "ShortTensor",
               "int8": "CharTensor", "uint8": "ByteTensor", "float16": "HalfTensor",
               "bfloat16": "BFloat16Tensor"}
_DTYPE_OF_CLASS = {name: dtype for dtype, name in CLASS_NAMES.items()}


# Note [The legacy constructor]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``torch.Tensor(...)`` and the typed classes (``torch.FloatTensor(...)``) share one argument
# parser, torch's ``new()`` with five forms: ``()`` an empty tensor, sizes as ints (``(40, 1)``,
# uninitialised: here zeros) or one ``Size`` (a plain tuple or list is *data*), ``(tensor)``
# an alias sharing its storage, ``(data)`` a tensor from a sequence or array, copied unless it is
# a numpy array of the class's dtype, which is shared as torch shares it. The base class makes
# the default dtype (float32 unless set_default_dtype changed it) and keeps a tensor's dtype; a
# typed class makes its dtype and refuses a tensor of another. Only ``device=`` is accepted as
# keyword. Both engines' Tensor classes call ``legacy_new`` from their constructor, the typed
# classes from ``__call__``; the engines' own code makes tensors another way (``_from_array``,
# the factories).

_SIGNATURES = ("\n * (*, torch.device device = None)\n * (torch.Storage storage)\n"
               " * (Tensor other)\n * (tuple of ints size, *, torch.device device = None)\n"
               " * (object data, *, torch.device device = None)\n")


def _is_size_int(a: Any) -> bool:
    return isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_))


def _invalid_combination(args: tuple, kwargs: dict) -> TypeError:
    got = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in
                                              kwargs.items()]
    return TypeError("new() received an invalid combination of arguments - got "
                     f"({', '.join(got)}), but expected one of:{_SIGNATURES}")


def legacy_new(factories: Any, dtype: str | None, args: tuple, kwargs: dict) -> Any:
    """A new tensor of the engine of ``factories`` from torch's legacy constructor arguments
    (Note [The legacy constructor]); ``dtype`` is the typed class's, None for ``Tensor``."""
    from transgrad._backend import is_tensor
    from transgrad._device import check_device

    f = factories
    device = kwargs.pop("device", None)
    if kwargs:
        raise _invalid_combination(args, kwargs)
    make = dtype or np.dtype(f.get_default_dtype()).name  # Tensor(...) follows the default
    if not args:
        return f.empty(0, dtype=make, device=device)
    first = args[0]
    if _is_size_int(first) or (len(args) == 1 and isinstance(first, Size)):
        sizes = tuple(first) if isinstance(first, Size) else args
        for i, a in enumerate(sizes):
            if not isinstance(a, (int, np.integer)):
                raise TypeError(f"new(): argument 'size' failed to unpack the object at pos "
                                f"{i + 1} with error \"type must be tuple of ints,but got "
                                f"{type(a).__name__}\"")
        sizes = tuple(int(a) for a in sizes)
        if any(a < 0 for a in sizes):
            raise RuntimeError(f"Trying to create tensor with negative dimension "
                               f"{min(sizes)}: {list(sizes)}")
        return f.empty(*sizes, dtype=make, device=device)
    if len(args) != 1:
        raise _invalid_combination(args, kwargs)
    if is_tensor(first):
        have = np.dtype(first.dtype).name  # numpy's name: str() of a dtype is torch's
        if dtype is not None and have != dtype:
            raise TypeError(f"expected {CLASS_NAMES[dtype]} (got "
                            f"{CLASS_NAMES.get(have, have)})")
        # an alias: torch records AliasBackward0 when ``first`` requires grad, here a view
        return first.view(first.shape) if first.requires_grad else first.detach()
    if isinstance(first, str):
        raise TypeError("new(): invalid data type 'str'")
    if not isinstance(first, (np.ndarray, list, tuple)) and not hasattr(first, "__array__"):
        raise TypeError(f"new(): data must be a sequence (got {type(first).__name__})")
    if isinstance(first, np.ndarray) and str(first.dtype) == make:
        check_device(device)
        return f._backend.from_numpy(first)  # shared, as torch shares it
    return f.tensor(first, dtype=make, device=device)


class _TypedTensorMeta(type):
    """The metaclass of the typed classes: calling one makes a tensor, ``isinstance`` checks
    the engine and the dtype."""

    _factories: Any
    _dtype: str

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return legacy_new(cls._factories, cls._dtype, args, kwargs)

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls._factories._backend.Tensor) and obj.dtype.name == cls._dtype

    def __repr__(cls) -> str:
        return f"<class 'transgrad.{cls.__name__}'>"

    @property
    def dtype(cls) -> Any:
        """The class's dtype (``DoubleTensor.dtype is float64``), as torch's."""
        from transgrad._dtypes import as_dtype

        return as_dtype(cls._dtype)


def typed_classes(factories: Any, dtypes: Any) -> Dict[str, type]:
    """The legacy class of each dtype in ``dtypes`` (names) for the engine of ``factories``."""
    return {CLASS_NAMES[d]: _TypedTensorMeta(CLASS_NAMES[d], (), {
        "_factories": factories, "_dtype": d,
        "__doc__": f"A {d} tensor of this engine, as torch's legacy ``{CLASS_NAMES[d]}``: "
                   f"``{CLASS_NAMES[d]}(2, 3)`` (uninitialised), ``{CLASS_NAMES[d]}(data)``."})
        for d in dtypes if d in CLASS_NAMES}


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
