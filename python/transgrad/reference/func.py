"""``transgrad.reference.func``: the transforms of ``transgrad.func``, which are engine-neutral
(each finds its engine from its tensors), so both engines share them."""

from transgrad.func import *  # noqa: F401,F403
from transgrad.func import __all__  # noqa: F401
