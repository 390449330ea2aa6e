"""The compiled engine's public API: ``transgrad._api`` applied to the ``transgrad._C`` backend.

Input: the extension module ``_C`` (Tensor, from_numpy, ops) and ``transgrad.autograd`` (its
autograd entry points). Output: the names ``import transgrad`` exposes (functions, factories,
dtypes, ``Tensor``, ``autograd``, grad-mode helpers) and the methods/operators installed on
``_C.Tensor``.

Invariant: the API is the one ``transgrad.reference`` gets from the same builder.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any, Dict

from transgrad import _C as _C_module
from transgrad import _op_registry, autograd
from transgrad._api import build as _build
from transgrad._api import legacy as _legacy
from transgrad._api.everyday_names import *  # noqa: F401,F403
from transgrad._api.everyday_names import __all__ as _everyday_names
from transgrad._api.extra_functions import *  # noqa: F401,F403  (the functions, both engines)
from transgrad._api.extra_functions import __all__ as _extra_functions
from transgrad._api.factories import NAMES as _FACTORY_NAMES
from transgrad._api.factories import Factories
from transgrad._api.functions import *  # noqa: F401,F403
from transgrad._api.functions import __all__ as _functions
from transgrad._api.grad_mode import is_inference_mode_enabled  # noqa: F401
from transgrad._api.grad_mode import make_inference_mode as _make_inference_mode
from transgrad._api.inplace_verdicts import VerdictTable, shipped_facts
from transgrad._api.legacy import Size, typename  # noqa: F401
from transgrad._api.printing import get_printoptions, set_printoptions  # noqa: F401
from transgrad._api.settings import *  # noqa: F401,F403
from transgrad._api.settings import __all__ as _settings
from transgrad._api.table_functions import *  # noqa: F401,F403
from transgrad._api.table_functions import __all__ as _table_functions
from transgrad._api.windows import NAMES as _WINDOW_NAMES
from transgrad._api.windows import Windows as _Windows
from transgrad._backend import Backend
from transgrad._dtypes import *  # noqa: F401,F403  (float32, float64, int64, bool, ...)
from transgrad._dtypes import __all__ as _dtypes
from transgrad._random import Generator  # noqa: F401  (one class serves both engines)

_C: Any = _C_module  # the extension (transgrad/__init__ imports this module only when built)
Tensor = _C.Tensor
if getattr(Tensor.__dict__["grad"], "fdel", None) is None:
    # ``del x.grad`` clears it and ``del x.requires_grad`` is torch's error (the binding's
    # properties have a getter and setter only)
    _grad_property = Tensor.__dict__["grad"]
    Tensor.grad = property(_grad_property.fget, _grad_property.fset,
                           lambda self: _grad_property.fset(self, None), _grad_property.__doc__)
    _rg_property = Tensor.__dict__["requires_grad"]

    def _del_requires_grad(self: Any) -> None:
        raise RuntimeError("requires_grad must be a bool")

    Tensor.requires_grad = property(_rg_property.fget, _rg_property.fset, _del_requires_grad,
                                    _rg_property.__doc__)
# tg.ops.NAME: a shipped op (_C.ops); tg.ops.<namespace>.NAME: an extension's
# (Note [No silent replacement] in transgrad/_op_registry.py)
_op_registry.bind_shipped("compiled", _C.ops)
ops = _op_registry.OpsRoot("compiled", _C.ops)
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


backend = Backend(
    name="transgrad", Tensor=Tensor, ops=_C.ops, from_numpy=_C.from_numpy, autograd=autograd,
    wrapped_number=_C._wrapped_number, set_default_dtype=_C._set_default_dtype,
    inplace_=_C.inplace_, set_history_=_C._set_history, optim=_C._optim,
    # the build's verdicts, the translator only for what they miss (Note [Verdicts as data])
    inplace_verdict=VerdictTable(shipped_facts()), operators=operators,
    views_along=_C.autograd._views_along)

_factories = Factories(backend)  # Note [Factories per engine] in _api/factories.py
get_default_dtype, set_default_dtype = _factories.get_default_dtype, _factories.set_default_dtype
manual_seed, is_tensor, numel = _factories.manual_seed, _factories.is_tensor, _factories.numel
tensor, as_tensor, from_numpy = _factories.tensor, _factories.as_tensor, _factories.from_numpy
full, zeros, ones, empty, eye = (_factories.full, _factories.zeros, _factories.ones,
                                 _factories.empty, _factories.eye)
arange, linspace, randn, rand = (_factories.arange, _factories.linspace, _factories.randn,
                                 _factories.rand)
randint, randperm = _factories.randint, _factories.randperm
from_dlpack = _factories.from_dlpack
triu_indices, tril_indices = _factories.triu_indices, _factories.tril_indices
scalar_tensor = _factories.scalar_tensor
zeros_like, ones_like, empty_like = (_factories.zeros_like, _factories.ones_like,
                                     _factories.empty_like)
full_like, randn_like, rand_like = (_factories.full_like, _factories.randn_like,
                                    _factories.rand_like)
seed, initial_seed = _factories.seed, _factories.initial_seed
get_rng_state, set_rng_state = _factories.get_rng_state, _factories.set_rng_state
randint_like, normal, poisson = _factories.randint_like, _factories.normal, _factories.poisson
logspace = _factories.logspace
bernoulli, multinomial = _factories.bernoulli, _factories.multinomial
empty_strided, asarray = _factories.empty_strided, _factories.asarray
_windows = _Windows(_factories)
hann_window, hamming_window, blackman_window = (_windows.hann_window, _windows.hamming_window,
                                                _windows.blackman_window)
bartlett_window, kaiser_window = _windows.bartlett_window, _windows.kaiser_window
default_generator = _factories.default_generator


def _legacy_new(args: tuple, kwargs: dict) -> Any:
    """``Tensor(...)``: torch's legacy constructor (the C++ ``__init__`` of ``_C.Tensor`` calls
    this; Note [The legacy constructor] in _api/legacy.py)."""
    return _legacy.legacy_new(_factories, None, args, kwargs)


_typed = _legacy.typed_classes(_factories, tuple(_legacy.CLASS_NAMES))
FloatTensor, DoubleTensor = _typed["FloatTensor"], _typed["DoubleTensor"]
LongTensor, BoolTensor = _typed["LongTensor"], _typed["BoolTensor"]
IntTensor, ShortTensor = _typed["IntTensor"], _typed["ShortTensor"]
CharTensor, ByteTensor = _typed["CharTensor"], _typed["ByteTensor"]
HalfTensor, BFloat16Tensor = _typed["HalfTensor"], _typed["BFloat16Tensor"]
inference_mode = _make_inference_mode(autograd.no_grad)
no_grad, enable_grad = autograd.no_grad, autograd.enable_grad
set_grad_enabled, is_grad_enabled = autograd.set_grad_enabled, autograd.is_grad_enabled
_build(backend, _factories)


def get_num_threads() -> builtins.int:
    """Threads a large kernel may be split over (the cores, or TG_NUM_THREADS when set)."""
    return _C._kernels._get_num_threads()  # a Python int (the builtin `int` is tg.int here)


def set_num_threads(n: builtins.int) -> None:
    """Sets the intra-op thread count (as ``torch.set_num_threads``); 1 turns splitting off.
    Kernels of several Python threads running at once are never split (Note [Inter-op
    first] in csrc/tensor/parallel.h)."""
    _C._kernels._set_num_threads(operator.index(n))


__all__ = sorted([*_functions, *_extra_functions, *_table_functions, *_dtypes, *_FACTORY_NAMES,
                  *_WINDOW_NAMES, *_everyday_names,
                  "Tensor", "ops", "autograd", "no_grad", "enable_grad", "set_grad_enabled",
                  "is_grad_enabled", "get_num_threads", "set_num_threads", "Generator",
                  "default_generator", "FloatTensor", "DoubleTensor", "LongTensor",
                  "BoolTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor",
                  "HalfTensor", "BFloat16Tensor", "get_printoptions", "set_printoptions",
                  "inference_mode", "is_inference_mode_enabled", "typename", "Size", *_settings])
