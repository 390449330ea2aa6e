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


class LazyConv1d(_conv.LazyConv1d, Conv1d):
    __doc__ = _conv.LazyConv1d.__doc__
    cls_to_become = Conv1d


class LazyConv2d(_conv.LazyConv2d, Conv2d):
    __doc__ = _conv.LazyConv2d.__doc__
    cls_to_become = Conv2d


class LazyConv3d(_conv.LazyConv3d, Conv3d):
    __doc__ = _conv.LazyConv3d.__doc__
    cls_to_become = Conv3d


class LazyConvTranspose1d(_conv.LazyConvTranspose1d, ConvTranspose1d):
    __doc__ = _conv.LazyConvTranspose1d.__doc__
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_conv.LazyConvTranspose2d, ConvTranspose2d):
    __doc__ = _conv.LazyConvTranspose2d.__doc__
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_conv.LazyConvTranspose3d, ConvTranspose3d):
    __doc__ = _conv.LazyConvTranspose3d.__doc__
    cls_to_become = ConvTranspose3d


__all__ = [
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
    "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
    "LazyConvTranspose3d",
]
