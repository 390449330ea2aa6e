"""``transgrad.reference.nn.functional``: the same engine-neutral functions as
``transgrad.nn.functional`` (each finds its engine from its tensor input)."""

from transgrad.nn.functional import *  # noqa: F401,F403
from transgrad.nn.functional import __all__  # noqa: F401
