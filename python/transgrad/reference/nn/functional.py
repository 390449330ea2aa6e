"""``transgrad.reference.nn.functional``: linear, activations, dropout, losses (reference engine).

Built from ``transgrad._nn.functional`` over ``transgrad.reference``; see that module.
"""

import transgrad.reference as _ref
from transgrad._nn import build as _build

_F = _build(_ref, "transgrad.reference").functional
globals().update({k: getattr(_F, k) for k in _F.__all__})
__all__ = list(_F.__all__) + ["pdist"]

# torch.nn.functional.pdist is torch.pdist (engine-neutral: one function for both engines).
from transgrad._api.linalg import pdist  # noqa: E402,F401
