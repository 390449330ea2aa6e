"""The compiled engine's public API: ``transgrad._api`` applied to the ``transgrad._C`` backend.

Input: the extension module ``_C`` (Tensor, from_numpy, ops) and ``transgrad.autograd`` (its
autograd entry points). Output: the names ``import transgrad`` exposes (functions, factories,
dtypes, ``Tensor``, ``autograd``, grad-mode helpers) and the methods/operators installed on
``_C.Tensor``.

Invariant: the API is the one ``transgrad.reference`` gets from the same builder.
"""

from __future__ import annotations

import operator
import types
from typing import Any, Dict

from transgrad import _C as _C_module
from transgrad import autograd
from transgrad._api import build as _build
from transgrad._api.inplace_verdicts import VerdictTable, shipped_facts

_C: Any = _C_module  # the extension (transgrad/__init__ imports this module only when built)
Tensor = _C.Tensor

backend: Any = types.SimpleNamespace(
    name="transgrad", Tensor=Tensor, ops=_C.ops, from_numpy=_C.from_numpy, autograd=autograd,
    inplace_=_C.inplace_, set_history_=_C._set_history,
    # the build's verdicts, the translator only for what they miss (Note [Verdicts as data])
    inplace_verdict=VerdictTable(shipped_facts()))

_namespace: Dict[str, Any] = {}
_build(_namespace, backend)
_namespace["ops"] = _C.ops


def get_num_threads() -> int:
    """Threads a large kernel may be split over (the cores, or TG_NUM_THREADS when set)."""
    return int(_C._kernels._get_num_threads())


def set_num_threads(n: int) -> None:
    """Sets the intra-op thread count (as ``torch.set_num_threads``); 1 turns splitting off.
    Kernels of several Python threads running at once are never split (Note [Inter-op
    first] in csrc/tensor/parallel.h)."""
    _C._kernels._set_num_threads(operator.index(n))


_namespace["get_num_threads"], _namespace["set_num_threads"] = get_num_threads, set_num_threads
# The API exports dtypes named bool/float/int: code above spells the builtins as builtins.X.
globals().update(_namespace)


def _install_fast_operators() -> None:
    """Replace the hot arithmetic operators by their C++ fast paths, which fall back to the
    Python versions just installed for anything but tensors and Python numbers (Note [Fast
    operators] in csrc/python/operators.cpp)."""
    fast = _C._fast_ops
    names = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
             "__truediv__", "__rtruediv__")
    fast._set_fallbacks({n: Tensor.__dict__[n] for n in names})
    for n in names + ("__neg__",):
        setattr(Tensor, n, _instancemethod(getattr(fast, n)))


def _instancemethod(fn: Any) -> Any:
    # pybind11 functions are builtins (no descriptor binding): wrap to bind `self`.
    return _C._instancemethod(fn)


_install_fast_operators()

__all__ = [k for k in sorted(_namespace) if not k.startswith("_")]
