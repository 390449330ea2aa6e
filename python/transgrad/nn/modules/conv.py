"""``transgrad.nn.modules.conv``: convolutions, bound to the compiled engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.conv`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.reference.nn.modules.conv`` (tests/nn/test_nn_namespaces.py keeps the two in
step).
"""

from transgrad._nn.modules import conv as _conv

from .module import Module


class _ConvNd(_conv._ConvNd, Module):
    __doc__ = _conv._ConvNd.__doc__


class Conv1d(_conv.Conv1d, _ConvNd):
    __doc__ = _conv.Conv1d.__doc__


class Conv2d(_conv.Conv2d, _ConvNd):
    __doc__ = _conv.Conv2d.__doc__


__all__ = ["Conv1d", "Conv2d"]
