"""``transgrad.nn``: Module, Parameter, layers and losses of the compiled engine.

The layers are the engine-neutral classes of ``transgrad._nn`` bound to this engine by one-line
subclasses in ``modules/`` (Note [Which engine makes a layer's parameters] in
transgrad/_nn/module.py); ``functional`` and ``utils`` are shared with ``transgrad.reference.nn``.
"""

from . import functional, init, utils
from .modules import *  # noqa: F403  (the layers: modules/__init__.py lists them once)
from .modules import __all__ as _layers
from .parameter import Parameter, UninitializedParameter

__all__ = ["Parameter", "UninitializedParameter", "functional", "init", "utils", *_layers]
