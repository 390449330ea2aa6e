"""``transgrad.optim``: SGD, Adam, AdamW for the compiled engine.

Built from ``transgrad._nn.optim`` (shared with ``transgrad.reference.optim``) over ``transgrad``.
"""

import transgrad as _tg
from transgrad._nn import build as _build

from . import lr_scheduler  # noqa: F401  (engine-free: the same module under both engines)

if _tg._C is not None:  # the submodules (lr_scheduler, ...) import without the compiled engine
    _optim = _build(_tg, "transgrad").optim
    globals().update({k: getattr(_optim, k) for k in _optim.__all__})
    __all__ = list(_optim.__all__)
