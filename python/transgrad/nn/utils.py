"""``transgrad.nn.utils``: gradient clipping for the compiled engine.

Built from ``transgrad._nn.utils`` over ``transgrad``; see that module for the details.
"""

import transgrad as _tg
from transgrad._nn import build as _build

_utils = _build(_tg, "transgrad").utils
globals().update({k: getattr(_utils, k) for k in _utils.__all__})
__all__ = list(_utils.__all__)
