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


def __getattr__(name: str) -> object:
    # ``swa_utils`` binds AveragedModel to this engine's Module: imported on first use, so
    # importing the optimizers needs no nn (nor, for the reference engine, the compiled one)
    if name == "swa_utils":
        import importlib

        return importlib.import_module("transgrad.reference.optim.swa_utils")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
