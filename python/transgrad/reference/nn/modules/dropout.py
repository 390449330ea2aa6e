"""``transgrad.reference.nn.modules.dropout``: dropout, bound to the reference engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.dropout`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.nn.modules.dropout`` (tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn.modules import dropout as _dropout

from .module import Module


class _DropoutNd(_dropout._DropoutNd, Module):
    __doc__ = _dropout._DropoutNd.__doc__


class Dropout(_dropout.Dropout, _DropoutNd):
    __doc__ = _dropout.Dropout.__doc__


class Dropout1d(_dropout.Dropout1d, _DropoutNd):
    __doc__ = _dropout.Dropout1d.__doc__


class Dropout2d(_dropout.Dropout2d, _DropoutNd):
    __doc__ = _dropout.Dropout2d.__doc__


class Dropout3d(_dropout.Dropout3d, _DropoutNd):
    __doc__ = _dropout.Dropout3d.__doc__


class AlphaDropout(_dropout.AlphaDropout, _DropoutNd):
    __doc__ = _dropout.AlphaDropout.__doc__


__all__ = [
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout"
]
