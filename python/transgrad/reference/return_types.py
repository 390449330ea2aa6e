"""``transgrad.reference.return_types``: the classes of ``transgrad.return_types``, which are
engine-neutral, so both engines return the same ones (as torch has one ``torch.return_types``)."""

from transgrad.return_types import *  # noqa: F401,F403
from transgrad.return_types import __all__  # noqa: F401
