"""``transgrad.reference.nn.modules.activation``: the activation layers, bound to the reference
engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.activation`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.nn.modules.activation`` (tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn.modules import activation as _activation

from .module import Module


class ReLU(_activation.ReLU, Module):
    __doc__ = _activation.ReLU.__doc__


class Tanh(_activation.Tanh, Module):
    __doc__ = _activation.Tanh.__doc__


class Sigmoid(_activation.Sigmoid, Module):
    __doc__ = _activation.Sigmoid.__doc__


class SiLU(_activation.SiLU, Module):
    __doc__ = _activation.SiLU.__doc__


class GELU(_activation.GELU, Module):
    __doc__ = _activation.GELU.__doc__


class Softplus(_activation.Softplus, Module):
    __doc__ = _activation.Softplus.__doc__


class ELU(_activation.ELU, Module):
    __doc__ = _activation.ELU.__doc__


class LeakyReLU(_activation.LeakyReLU, Module):
    __doc__ = _activation.LeakyReLU.__doc__


class Softmax(_activation.Softmax, Module):
    __doc__ = _activation.Softmax.__doc__


class LogSoftmax(_activation.LogSoftmax, Softmax):
    __doc__ = _activation.LogSoftmax.__doc__


__all__ = [
    "ReLU", "Tanh", "Sigmoid", "SiLU", "GELU", "Softplus", "ELU", "LeakyReLU", "Softmax",
    "LogSoftmax",
]
