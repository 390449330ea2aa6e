"""``transgrad.reference.nn``: Module, Parameter, layers and losses for the reference engine.

The code lives in ``transgrad._nn`` (shared with ``transgrad.nn``); this module only builds it
over ``transgrad.reference``. ``transgrad.reference.nn.functional`` holds the functional forms,
``transgrad.reference.nn.utils`` gradient clipping (both importable as submodules too).
"""

import sys as _sys

import transgrad.reference as _ref
from transgrad._nn import build as _build

_ns = _build(_ref, "transgrad.reference")
globals().update({k: getattr(_ns.nn, k) for k in _ns.nn.__all__})
__all__ = list(_ns.nn.__all__)
_sys.modules.setdefault(__name__ + ".functional", _ns.functional)
_sys.modules.setdefault(__name__ + ".utils", _ns.utils)
