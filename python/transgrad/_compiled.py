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
from transgrad._api.extra_functions import *  # noqa: F401,F403  (the functions, both engines)
from transgrad._api.extra_functions import __all__ as _extra_functions
from transgrad._api.functions import *  # noqa: F401,F403
from transgrad._api.functions import __all__ as _functions
from transgrad._api.inplace_verdicts import VerdictTable, shipped_facts

_C: Any = _C_module  # the extension (transgrad/__init__ imports this module only when built)
Tensor = _C.Tensor
_FAST_OPERATORS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                   "__truediv__", "__rtruediv__", "__neg__")


def operators(python: Dict[str, Any]) -> Dict[str, Any]:
    """The arithmetic operators of ``_C.Tensor``: the C++ fast paths for tensors and Python
    numbers, which call the Python versions ``python`` for anything else (Note [Fast operators]
    in csrc/python/operators.cpp). Installed once, by ``transgrad._api.methods``."""
    fast = _C._fast_ops
    fast._set_fallbacks({n: python[n] for n in _FAST_OPERATORS if n != "__neg__"})
    # pybind11 functions are builtins (no descriptor binding): wrapped to bind ``self``
    return {**python, **{n: _C._instancemethod(getattr(fast, n)) for n in _FAST_OPERATORS}}


backend: Any = types.SimpleNamespace(
    name="transgrad", Tensor=Tensor, ops=_C.ops, from_numpy=_C.from_numpy, autograd=autograd,
    inplace_=_C.inplace_, set_history_=_C._set_history,
    # the build's verdicts, the translator only for what they miss (Note [Verdicts as data])
    inplace_verdict=VerdictTable(shipped_facts()), operators=operators)

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


__all__ = sorted([*_functions, *_extra_functions,
                  *(k for k in _namespace if not k.startswith("_"))])
