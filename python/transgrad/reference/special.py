"""``transgrad.reference.special``: the functions of ``transgrad.special``, which are
engine-neutral (each finds its engine from its tensor), so both engines share them."""

from transgrad.special import *  # noqa: F401,F403
from transgrad.special import __all__  # noqa: F401
