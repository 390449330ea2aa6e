"""``transgrad.reference.nn.modules.pooling``: pooling, bound to the reference engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.pooling`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.nn.modules.pooling`` (tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn.modules import pooling as _pooling

from .module import Module


class _MaxPoolNd(_pooling._MaxPoolNd, Module):
    __doc__ = _pooling._MaxPoolNd.__doc__


class MaxPool2d(_pooling.MaxPool2d, _MaxPoolNd):
    __doc__ = _pooling.MaxPool2d.__doc__


class AvgPool2d(_pooling.AvgPool2d, Module):
    __doc__ = _pooling.AvgPool2d.__doc__


class AdaptiveAvgPool2d(_pooling.AdaptiveAvgPool2d, Module):
    __doc__ = _pooling.AdaptiveAvgPool2d.__doc__


class MaxPool1d(_pooling.MaxPool1d, _MaxPoolNd):
    __doc__ = _pooling.MaxPool1d.__doc__


class MaxPool3d(_pooling.MaxPool3d, _MaxPoolNd):
    __doc__ = _pooling.MaxPool3d.__doc__


class _AdaptiveMaxPoolNd(_pooling._AdaptiveMaxPoolNd, Module):
    __doc__ = _pooling._AdaptiveMaxPoolNd.__doc__


class AdaptiveMaxPool1d(_pooling.AdaptiveMaxPool1d, _AdaptiveMaxPoolNd):
    __doc__ = _pooling.AdaptiveMaxPool1d.__doc__


class AdaptiveMaxPool2d(_pooling.AdaptiveMaxPool2d, _AdaptiveMaxPoolNd):
    __doc__ = _pooling.AdaptiveMaxPool2d.__doc__


class AvgPool1d(_pooling.AvgPool1d, Module):
    __doc__ = _pooling.AvgPool1d.__doc__


class AvgPool3d(_pooling.AvgPool3d, AvgPool2d):
    __doc__ = _pooling.AvgPool3d.__doc__


class AdaptiveAvgPool1d(_pooling.AdaptiveAvgPool1d, AdaptiveAvgPool2d):
    __doc__ = _pooling.AdaptiveAvgPool1d.__doc__


class AdaptiveAvgPool3d(_pooling.AdaptiveAvgPool3d, AdaptiveAvgPool2d):
    __doc__ = _pooling.AdaptiveAvgPool3d.__doc__


class AdaptiveMaxPool3d(_pooling.AdaptiveMaxPool3d, _AdaptiveMaxPoolNd):
    __doc__ = _pooling.AdaptiveMaxPool3d.__doc__


class _MaxUnpoolNd(_pooling._MaxUnpoolNd, Module):
    __doc__ = _pooling._MaxUnpoolNd.__doc__


class MaxUnpool1d(_pooling.MaxUnpool1d, _MaxUnpoolNd):
    __doc__ = _pooling.MaxUnpool1d.__doc__


class MaxUnpool2d(_pooling.MaxUnpool2d, _MaxUnpoolNd):
    __doc__ = _pooling.MaxUnpool2d.__doc__


class MaxUnpool3d(_pooling.MaxUnpool3d, _MaxUnpoolNd):
    __doc__ = _pooling.MaxUnpool3d.__doc__


__all__ = [
    "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "MaxPool1d", "MaxPool3d", "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d", "AvgPool1d", "AdaptiveAvgPool1d", "AvgPool3d", "AdaptiveAvgPool3d",
    "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"
]
