"""The learning-rate schedules at torch's path (``torch.optim.lr_scheduler``); engine-neutral:
the very module ``transgrad.optim.lr_scheduler``'s names."""

from transgrad.optim.lr_scheduler import *  # noqa: F401,F403
from transgrad.optim.lr_scheduler import __all__  # noqa: F401
