"""transgrad.reference: the pure-Python engine on numpy, with the same API as ``transgrad``.

Formulas are run directly (``apply_formula``), their forwards on the numpy kernels
(``kernels.py``), their backwards by the engine (``engine.py``). Formula modules load lazily: the
first use of an op imports ``transgrad.formulas`` (``lang.load_builtin_formulas``).

Files: tensor.py (Tensor), grad_mode.py, node.py (Node, AccumulateGrad, SavedTensor), plan.py,
formula.py (apply_formula, FormulaNode), engine.py (backward, grad), function.py
(autograd.Function), autograd.py (the namespace), api.py (the backend for ``transgrad._api``).
"""

import builtins as _builtins
import operator as _operator

from transgrad import lang as _lang
from transgrad._api import build as _build
from transgrad._api import legacy as _legacy
from transgrad._api.everyday_names import *  # noqa: F401,F403
from transgrad._api.everyday_names import __all__ as _everyday_names
from transgrad._api.extra_functions import *  # noqa: F401,F403  (the functions, both engines)
from transgrad._api.factories import Factories as _Factories
from transgrad._api.functions import *  # noqa: F401,F403
from transgrad._api.grad_mode import is_inference_mode_enabled  # noqa: F401
from transgrad._api.grad_mode import make_inference_mode as _make_inference_mode
from transgrad._api.legacy import Size, typename  # noqa: F401
from transgrad._api.printing import get_printoptions, set_printoptions  # noqa: F401
from transgrad._api.settings import *  # noqa: F401,F403
from transgrad._api.settings import __all__ as _settings
from transgrad._api.table_functions import *  # noqa: F401,F403
from transgrad._api.windows import Windows as _Windows
from transgrad._dtypes import *  # noqa: F401,F403  (float32, float64, int64, bool, ...)
from transgrad._op_registry import OpsRoot as _OpsRoot
from transgrad._random import Generator  # noqa: F401  (one class serves both engines)
from transgrad.reference import autograd
from transgrad.reference.api import backend as _backend
from transgrad.reference.executor import EXECUTOR as _EXECUTOR
from transgrad.reference.formula import apply_formula
from transgrad.reference.tensor import Tensor

_lang.set_executor(_EXECUTOR)  # formulas run here (Note [Who runs a formula] in lang.py)
_factories = _Factories(_backend)  # Note [Factories per engine] in _api/factories.py
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
_typed = _legacy.typed_classes(_factories, tuple(_legacy.CLASS_NAMES))
FloatTensor, DoubleTensor = _typed["FloatTensor"], _typed["DoubleTensor"]
LongTensor, BoolTensor = _typed["LongTensor"], _typed["BoolTensor"]
IntTensor, ShortTensor = _typed["IntTensor"], _typed["ShortTensor"]
CharTensor, ByteTensor = _typed["CharTensor"], _typed["ByteTensor"]
HalfTensor, BFloat16Tensor = _typed["HalfTensor"], _typed["BFloat16Tensor"]
inference_mode = _make_inference_mode(autograd.no_grad)
no_grad, enable_grad = autograd.no_grad, autograd.enable_grad
set_grad_enabled, is_grad_enabled = autograd.set_grad_enabled, autograd.is_grad_enabled
_build(_backend, _factories)
# tg.reference.ops.NAME: a shipped op; tg.reference.ops.<namespace>.NAME: a user's
# (Note [No silent replacement] in transgrad/_op_registry.py)
ops = _OpsRoot("reference", _backend.ops, lambda: sorted(_lang.REGISTRY))

_num_threads = 1


_MAX_THREADS = 1024


def get_num_threads() -> _builtins.int:
    """The value last given to set_num_threads (1 by default): the reference engine runs every
    kernel on the calling thread, in numpy."""
    return _num_threads


def set_num_threads(n: _builtins.int) -> None:
    """Accepted for API parity with ``transgrad``; pure Python splits nothing."""
    global _num_threads
    n = _operator.index(n)
    if n < 1:
        raise ValueError(f"set_num_threads: expected a positive number of threads, got {n}")
    if n > _MAX_THREADS:  # the compiled pool's limit (kMaxThreads in csrc/tensor/parallel.h)
        raise ValueError(f"set_num_threads: {n} threads is more than the pool supports "
                         f"(at most {_MAX_THREADS})")
    _num_threads = n


__all__ = ["BFloat16Tensor", "BoolTensor", "ByteTensor", "CharTensor", "DoubleTensor",
           "FloatTensor", "Generator", "HalfTensor", "IntTensor", "LongTensor", "ShortTensor",
           "Size",
           "Tensor",
           "accelerator", "amp", "apply_formula", "autograd", "backends", "cuda",
           "default_generator",
           "device", "distributions", "func", "get_default_device", "get_num_threads",
           "get_printoptions",
           "inference_mode", "is_inference_mode_enabled", "linalg", "load", "nn", "ops", "optim",
           "return_types", "save", "serialization", "set_default_device", "set_num_threads",
           "set_printoptions", "special", "testing", "typename", "utils", *_settings,
           *_everyday_names]

# The CPU is the one device, for both engines (transgrad/_device.py).
from transgrad import accelerator, amp, backends, cuda, testing  # noqa: E402,F401
from transgrad._device import device, get_default_device, set_default_device  # noqa: E402,F401

# As torch: ``transgrad.reference.nn.Linear`` right after ``import transgrad.reference``.
from transgrad.reference import (  # noqa: E402,F401
    distributions,
    extension,
    func,
    linalg,
    nn,
    optim,
    return_types,
    serialization,
    special,
    utils,
)
from transgrad.reference.func import vmap  # noqa: E402,F401  (torch.vmap)
from transgrad.reference.serialization import load, save  # noqa: E402,F401
