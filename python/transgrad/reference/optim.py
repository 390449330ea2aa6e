"""``transgrad.reference.optim``: SGD, Adam, AdamW for the reference engine.

Built from ``transgrad._nn.optim`` (shared with ``transgrad.optim``) over ``transgrad.reference``.
"""

import transgrad.reference as _ref
from transgrad._nn import build as _build
from transgrad.optim import lr_scheduler  # noqa: F401  (engine-free: one module for both engines)

_optim = _build(_ref, "transgrad.reference").optim
globals().update({k: getattr(_optim, k) for k in _optim.__all__})
__all__ = list(_optim.__all__)
