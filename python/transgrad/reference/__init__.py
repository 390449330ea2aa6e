"""transgrad.reference: the pure-Python engine on numpy, with the same API as ``transgrad``.

Formulas are run directly (``apply_formula``), their forwards on the numpy kernels
(``kernels.py``), their backwards by the engine (``engine.py``). Formula modules load lazily: the
first use of an op imports ``transgrad.formulas`` (``lang.load_builtin_formulas``).

Files: tensor.py (Tensor), grad_mode.py, node.py (Node, AccumulateGrad, SavedTensor), plan.py,
formula.py (apply_formula, FormulaNode), engine.py (backward, grad), function.py
(autograd.Function), autograd.py (the namespace), api.py (the backend for ``transgrad._api``).
"""

import operator

from transgrad._api import build as _build
from transgrad.reference import autograd
from transgrad.reference.api import backend as _backend
from transgrad.reference.formula import apply_formula
from transgrad.reference.tensor import Tensor

_build(globals(), _backend)
ops = _backend.ops

_num_threads = 1


_MAX_THREADS = 1024


def get_num_threads() -> int:
    """The value last given to set_num_threads (1 by default): the reference engine runs every
    kernel on the calling thread, in numpy."""
    return _num_threads


def set_num_threads(n: int) -> None:
    """Accepted for API parity with ``transgrad``; pure Python splits nothing."""
    global _num_threads
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"set_num_threads: expected a positive number of threads, got {n}")
    if n > _MAX_THREADS:  # the compiled pool's limit (kMaxThreads in csrc/tensor/parallel.h)
        raise ValueError(f"set_num_threads: {n} threads is more than the pool supports "
                         f"(at most {_MAX_THREADS})")
    _num_threads = n


__all__ = ["Tensor", "apply_formula", "autograd", "get_num_threads", "ops", "set_num_threads"]


def __getattr__(name: str):
    """``tg.nn`` and ``tg.optim`` without importing them eagerly (as ``torch.nn``)."""
    if name in ("nn", "optim"):
        import importlib

        return importlib.import_module(f"transgrad.reference.{name}")
    raise AttributeError(f"module 'transgrad.reference' has no attribute {name!r}")
