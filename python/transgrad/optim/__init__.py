"""``transgrad.optim``: SGD, Adam, AdamW, and the ``Optimizer`` base to write more.

The optimizers are engine-neutral (the engine is the parameters' own: Note [One API, two
engines] in transgrad/_backend.py): ``transgrad.reference.optim`` exports these same classes.
"""

from transgrad.optim.adam import Adam
from transgrad.optim.adamw import AdamW
from transgrad.optim.optimizer import Optimizer
from transgrad.optim.sgd import SGD

__all__ = ["Adam", "AdamW", "Optimizer", "SGD"]
