"""``transgrad.reference.autograd``: grad, backward, grad mode, Function, gradcheck.

``gradcheck`` and ``gradgradcheck`` are engine-neutral (``transgrad/_api/gradcheck.py``, shared
with ``transgrad.autograd``).
"""

from __future__ import annotations

import numpy as np

from transgrad._api.grad_mode import make_anomaly_modes
from transgrad._api.legacy_autograd import (
    make_inplace_function,
    make_multithreading,
    make_variable,
)
from transgrad.reference import engine as _engine
from transgrad.reference.autograd import gradcheck as _gradcheck_module
from transgrad.reference.engine import backward, grad
from transgrad.reference.function import Function, FunctionCtx, once_differentiable
from transgrad.reference.grad_mode import (
    enable_grad,
    is_anomaly_enabled,
    is_grad_enabled,
    no_grad,
    set_anomaly_enabled,
    set_grad_enabled,
)
from transgrad.reference.tensor import Tensor

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad",
           "enable_grad", "set_grad_enabled", "is_grad_enabled", "detect_anomaly",
           "set_detect_anomaly", "gradcheck", "gradgradcheck", "Variable",
           "set_multithreading_enabled", "is_multithreading_enabled"]

# torch's layout: the submodule autograd.gradcheck exists (GradcheckError is there) and the
# package's name gradcheck is the function
gradcheck, gradgradcheck = _gradcheck_module.gradcheck, _gradcheck_module.gradgradcheck
Variable = make_variable(Tensor, lambda: Tensor._from_array(np.zeros(0, np.float32)),
                         _engine.queue_callback)
InplaceFunction = make_inplace_function(Function)
set_multithreading_enabled, is_multithreading_enabled = make_multithreading()


detect_anomaly, set_detect_anomaly = make_anomaly_modes(is_anomaly_enabled, set_anomaly_enabled)

from . import function, functional, graph  # noqa: E402,F401  (submodules, as torch)
