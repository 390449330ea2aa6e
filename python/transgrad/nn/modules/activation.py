"""``transgrad.nn.modules.activation``: the activation layers, bound to the compiled engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.activation`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.reference.nn.modules.activation`` (tests/nn/test_nn_namespaces.py keeps the two
in step).
"""

from transgrad._nn.modules import activation as _activation

from .module import Module


class ReLU(_activation.ReLU, Module):
    __doc__ = _activation.ReLU.__doc__


class Tanh(_activation.Tanh, Module):
    __doc__ = _activation.Tanh.__doc__


class Sigmoid(_activation.Sigmoid, Module):
    __doc__ = _activation.Sigmoid.__doc__


class _Inplace(_activation._Inplace, Module):
    __doc__ = _activation._Inplace.__doc__


class SiLU(_activation.SiLU, _Inplace):
    __doc__ = _activation.SiLU.__doc__


class Mish(_activation.Mish, _Inplace):
    __doc__ = _activation.Mish.__doc__


class Hardswish(_activation.Hardswish, _Inplace):
    __doc__ = _activation.Hardswish.__doc__


class Hardsigmoid(_activation.Hardsigmoid, _Inplace):
    __doc__ = _activation.Hardsigmoid.__doc__


class SELU(_activation.SELU, _Inplace):
    __doc__ = _activation.SELU.__doc__


class GELU(_activation.GELU, Module):
    __doc__ = _activation.GELU.__doc__


class Softplus(_activation.Softplus, Module):
    __doc__ = _activation.Softplus.__doc__


class _Alpha(_activation._Alpha, Module):
    __doc__ = _activation._Alpha.__doc__


class ELU(_activation.ELU, _Alpha):
    __doc__ = _activation.ELU.__doc__


class CELU(_activation.CELU, _Alpha):
    __doc__ = _activation.CELU.__doc__


class LeakyReLU(_activation.LeakyReLU, Module):
    __doc__ = _activation.LeakyReLU.__doc__


class PReLU(_activation.PReLU, Module):
    __doc__ = _activation.PReLU.__doc__


class Hardtanh(_activation.Hardtanh, Module):
    __doc__ = _activation.Hardtanh.__doc__


class ReLU6(_activation.ReLU6, Hardtanh):
    __doc__ = _activation.ReLU6.__doc__


class Threshold(_activation.Threshold, Module):
    __doc__ = _activation.Threshold.__doc__


class Softsign(_activation.Softsign, Module):
    __doc__ = _activation.Softsign.__doc__


class LogSigmoid(_activation.LogSigmoid, Module):
    __doc__ = _activation.LogSigmoid.__doc__


class Tanhshrink(_activation.Tanhshrink, Module):
    __doc__ = _activation.Tanhshrink.__doc__


class Hardshrink(_activation.Hardshrink, Module):
    __doc__ = _activation.Hardshrink.__doc__


class Softshrink(_activation.Softshrink, Hardshrink):
    __doc__ = _activation.Softshrink.__doc__


class GLU(_activation.GLU, Module):
    __doc__ = _activation.GLU.__doc__


class _Dim(_activation._Dim, Module):
    __doc__ = _activation._Dim.__doc__


class Softmax(_activation.Softmax, _Dim):
    __doc__ = _activation.Softmax.__doc__


class LogSoftmax(_activation.LogSoftmax, Softmax):
    __doc__ = _activation.LogSoftmax.__doc__


class Softmin(_activation.Softmin, _Dim):
    __doc__ = _activation.Softmin.__doc__


class Softmax2d(_activation.Softmax2d, Module):
    __doc__ = _activation.Softmax2d.__doc__


__all__ = [
    "ReLU", "Tanh", "Sigmoid", "SiLU", "Mish", "Hardswish", "Hardsigmoid", "SELU", "GELU",
    "Softplus", "ELU", "CELU", "LeakyReLU", "PReLU", "Hardtanh", "ReLU6", "Threshold", "Softsign",
    "LogSigmoid", "Tanhshrink", "Hardshrink", "Softshrink", "GLU", "Softmax", "LogSoftmax",
    "Softmin", "Softmax2d"
]
