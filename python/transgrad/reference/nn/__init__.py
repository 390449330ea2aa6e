"""``transgrad.reference.nn``: Module, Parameter, layers and losses for the reference engine.

The code lives in ``transgrad._nn`` (shared with ``transgrad.nn``); this module only builds it
over ``transgrad.reference``. ``transgrad.reference.nn.functional`` holds the functional forms,
``transgrad.reference.nn.utils`` gradient clipping.
"""

import transgrad.reference as _ref
from transgrad._nn import build as _build

_ns = _build(_ref, "transgrad.reference")
globals().update({k: getattr(_ns.nn, k) for k in _ns.nn.__all__
                  if k not in ("functional", "utils")})
__all__ = list(_ns.nn.__all__)

from . import functional, utils  # noqa: E402,F401  (submodules, bound to the same engine)
