"""``transgrad.optim``: the optimizers of ``torch.optim``, the ``Optimizer`` base to write more,
and ``lr_scheduler``.

The optimizers are engine-neutral (the engine is the parameters' own: Note [One API, two
engines] in transgrad/_backend.py): ``transgrad.reference.optim`` exports these same classes.
"""

from transgrad.optim import lr_scheduler
from transgrad.optim.adadelta import Adadelta
from transgrad.optim.adagrad import Adagrad
from transgrad.optim.adam import Adam
from transgrad.optim.adamax import Adamax
from transgrad.optim.adamw import AdamW
from transgrad.optim.lbfgs import LBFGS
from transgrad.optim.nadam import NAdam
from transgrad.optim.optimizer import Optimizer
from transgrad.optim.radam import RAdam
from transgrad.optim.rmsprop import RMSprop
from transgrad.optim.sgd import SGD

__all__ = ["Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "LBFGS", "NAdam", "Optimizer",
           "RAdam", "RMSprop", "SGD", "lr_scheduler"]


def __getattr__(name: str) -> object:
    # ``swa_utils`` binds AveragedModel to this engine's Module: imported on first use, so
    # importing the optimizers needs no nn (nor, for the reference engine, the compiled one)
    if name == "swa_utils":
        import importlib

        return importlib.import_module("transgrad.optim.swa_utils")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
