"""``transgrad.nn.functional``: linear, activations, dropout, losses (compiled engine).

Built from ``transgrad._nn.functional`` over ``transgrad``; see that module for the details.
"""

import transgrad as _tg
from transgrad._nn import build as _build

_F = _build(_tg, "transgrad").functional
globals().update({k: getattr(_F, k) for k in _F.__all__})
__all__ = list(_F.__all__) + ["pdist"]

# torch.nn.functional.pdist is torch.pdist (engine-neutral: one function for both engines).
from transgrad._api.linalg import pdist  # noqa: E402,F401
