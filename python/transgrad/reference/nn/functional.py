"""``transgrad.reference.nn.functional``: the same engine-neutral functions as
``transgrad.nn.functional`` (each finds its engine from its tensor input).

Imported from ``transgrad._nn``, not through ``transgrad.nn``, whose package binds layers to the
compiled engine: the reference engine imports without ``transgrad._C``.
"""

from transgrad._nn.functional_public import *  # noqa: F401,F403
from transgrad._nn.functional_public import __all__  # noqa: F401
