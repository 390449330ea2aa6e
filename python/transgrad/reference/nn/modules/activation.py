"""``transgrad.reference.nn.modules.activation``: the activation layers, bound to the reference
engine.

Each class is the engine-neutral one of ``transgrad._nn.layers`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py);
the twin file is ``transgrad.nn.modules.activation``
(tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn import layers as _layers

from .module import Module


class ReLU(_layers.ReLU, Module):
    __doc__ = _layers.ReLU.__doc__


class Tanh(_layers.Tanh, Module):
    __doc__ = _layers.Tanh.__doc__


class Sigmoid(_layers.Sigmoid, Module):
    __doc__ = _layers.Sigmoid.__doc__


class SiLU(_layers.SiLU, Module):
    __doc__ = _layers.SiLU.__doc__


class GELU(_layers.GELU, Module):
    __doc__ = _layers.GELU.__doc__


class Softplus(_layers.Softplus, Module):
    __doc__ = _layers.Softplus.__doc__


class ELU(_layers.ELU, Module):
    __doc__ = _layers.ELU.__doc__


class LeakyReLU(_layers.LeakyReLU, Module):
    __doc__ = _layers.LeakyReLU.__doc__


class Softmax(_layers.Softmax, Module):
    __doc__ = _layers.Softmax.__doc__


class LogSoftmax(_layers.LogSoftmax, Softmax):
    __doc__ = _layers.LogSoftmax.__doc__


__all__ = [
    "ReLU", "Tanh", "Sigmoid", "SiLU", "GELU", "Softplus", "ELU", "LeakyReLU", "Softmax",
    "LogSoftmax",
]
