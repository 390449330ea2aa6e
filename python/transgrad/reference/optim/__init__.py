"""``transgrad.reference.optim``: the optimizers of ``transgrad.optim``, which are
engine-neutral (each finds its engine from its parameters), so both engines share them.
"""

from transgrad.optim import (
    LBFGS,
    SGD,
    Adadelta,
    Adagrad,
    Adam,
    Adamax,
    AdamW,
    NAdam,
    Optimizer,
    RAdam,
    RMSprop,
    lr_scheduler,
)

__all__ = ["Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "LBFGS", "NAdam", "Optimizer",
           "RAdam", "RMSprop", "SGD", "lr_scheduler"]
