"""``transgrad.reference.nn.modules.loss``: the losses, bound to the reference engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.loss`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.nn.modules.loss`` (tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn.modules import loss as _loss

from .module import Module


class CrossEntropyLoss(_loss.CrossEntropyLoss, Module):
    __doc__ = _loss.CrossEntropyLoss.__doc__


class NLLLoss(_loss.NLLLoss, Module):
    __doc__ = _loss.NLLLoss.__doc__


class MSELoss(_loss.MSELoss, Module):
    __doc__ = _loss.MSELoss.__doc__


class BCEWithLogitsLoss(_loss.BCEWithLogitsLoss, Module):
    __doc__ = _loss.BCEWithLogitsLoss.__doc__


__all__ = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "BCEWithLogitsLoss"]
