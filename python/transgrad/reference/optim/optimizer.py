"""``Optimizer`` at torch's path (``torch.optim.optimizer``); engine-neutral."""

from transgrad.optim.optimizer import Optimizer

__all__ = ["Optimizer"]
