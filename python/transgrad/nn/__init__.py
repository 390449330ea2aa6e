"""``transgrad.nn``: Module, Parameter, layers and losses for the compiled engine.

The code lives in ``transgrad._nn`` (shared with ``transgrad.reference.nn``); this module only
builds it over ``transgrad``. ``transgrad.nn.functional`` holds the functional forms,
``transgrad.nn.utils`` gradient clipping.
"""

import transgrad as _tg
from transgrad._nn import build as _build

_ns = _build(_tg, "transgrad")
globals().update({k: getattr(_ns.nn, k) for k in _ns.nn.__all__
                  if k not in ("functional", "utils")})
__all__ = list(_ns.nn.__all__)

from . import functional, utils  # noqa: F401  (submodules, bound to the same engine)
