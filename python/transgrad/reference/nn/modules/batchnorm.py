"""``transgrad.reference.nn.modules.batchnorm``: batch normalisation, bound to the reference engine.

Each class is the engine-neutral one of ``transgrad._nn.layers`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py);
the twin file is ``transgrad.nn.modules.batchnorm``
(tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn import layers as _layers

from .module import Module


class _BatchNorm(_layers._BatchNorm, Module):
    __doc__ = _layers._BatchNorm.__doc__


class BatchNorm1d(_layers.BatchNorm1d, _BatchNorm):
    __doc__ = _layers.BatchNorm1d.__doc__


class BatchNorm2d(_layers.BatchNorm2d, _BatchNorm):
    __doc__ = _layers.BatchNorm2d.__doc__


__all__ = ["BatchNorm1d", "BatchNorm2d"]
