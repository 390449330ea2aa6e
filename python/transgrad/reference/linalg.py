"""``transgrad.reference.linalg``: the functions of ``transgrad.linalg``, which are
engine-neutral (each finds its engine from its tensor), so both engines share them."""

from transgrad.linalg import *  # noqa: F401,F403
from transgrad.linalg import __all__  # noqa: F401
