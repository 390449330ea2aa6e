"""``transgrad.reference.optim``: the optimizers of ``transgrad.optim``, which are
engine-neutral (each finds its engine from its parameters), so both engines share them.
"""

from transgrad.optim import SGD, Adam, AdamW, Optimizer

__all__ = ["Adam", "AdamW", "Optimizer", "SGD"]
