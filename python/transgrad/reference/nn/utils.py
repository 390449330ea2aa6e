"""``transgrad.reference.nn.utils``: gradient clipping for the reference engine.

Built from ``transgrad._nn.utils`` over ``transgrad.reference``; see that module for the details.
"""

import transgrad.reference as _ref
from transgrad._nn import build as _build

_utils = _build(_ref, "transgrad.reference").utils
globals().update({k: getattr(_utils, k) for k in _utils.__all__})
__all__ = list(_utils.__all__)
