"""``transgrad.reference.nn.init``: torch's initialisation schemes, filling a tensor in place
(engine-neutral, the same functions as ``transgrad.nn.init``; see ``transgrad._nn.init``, which
lists them once)."""

from transgrad._nn.init import *  # noqa: F403
from transgrad._nn.init import __all__  # noqa: F401
