"""``transgrad.reference.nn.modules.loss``: the losses, bound to the reference engine.

Each class is the engine-neutral one of ``transgrad._nn.layers`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py);
the twin file is ``transgrad.nn.modules.loss``
(tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn import layers as _layers

from .module import Module


class CrossEntropyLoss(_layers.CrossEntropyLoss, Module):
    __doc__ = _layers.CrossEntropyLoss.__doc__


class NLLLoss(_layers.NLLLoss, Module):
    __doc__ = _layers.NLLLoss.__doc__


class MSELoss(_layers.MSELoss, Module):
    __doc__ = _layers.MSELoss.__doc__


class BCEWithLogitsLoss(_layers.BCEWithLogitsLoss, Module):
    __doc__ = _layers.BCEWithLogitsLoss.__doc__


__all__ = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "BCEWithLogitsLoss"]
