"""``transgrad.reference.nn.modules.conv``: convolutions, bound to the reference engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.conv`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.nn.modules.conv`` (tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn.modules import conv as _conv

from .module import Module


class _ConvNd(_conv._ConvNd, Module):
    __doc__ = _conv._ConvNd.__doc__


class Conv1d(_conv.Conv1d, _ConvNd):
    __doc__ = _conv.Conv1d.__doc__


class Conv2d(_conv.Conv2d, _ConvNd):
    __doc__ = _conv.Conv2d.__doc__


class Conv3d(_conv.Conv3d, _ConvNd):
    __doc__ = _conv.Conv3d.__doc__


class _ConvTransposeNd(_conv._ConvTransposeNd, _ConvNd):
    __doc__ = _conv._ConvTransposeNd.__doc__


class ConvTranspose1d(_conv.ConvTranspose1d, _ConvTransposeNd):
    __doc__ = _conv.ConvTranspose1d.__doc__


class ConvTranspose2d(_conv.ConvTranspose2d, _ConvTransposeNd):
    __doc__ = _conv.ConvTranspose2d.__doc__


class ConvTranspose3d(_conv.ConvTranspose3d, _ConvTransposeNd):
    __doc__ = _conv.ConvTranspose3d.__doc__


__all__ = [
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"
]
