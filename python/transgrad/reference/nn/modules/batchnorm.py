"""``transgrad.reference.nn.modules.batchnorm``: batch normalisation, bound to the reference engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.batchnorm`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.nn.modules.batchnorm`` (tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn.modules import batchnorm as _batchnorm

from .module import Module


class _BatchNorm(_batchnorm._BatchNorm, Module):
    __doc__ = _batchnorm._BatchNorm.__doc__


class BatchNorm1d(_batchnorm.BatchNorm1d, _BatchNorm):
    __doc__ = _batchnorm.BatchNorm1d.__doc__


class BatchNorm2d(_batchnorm.BatchNorm2d, _BatchNorm):
    __doc__ = _batchnorm.BatchNorm2d.__doc__


class BatchNorm3d(_batchnorm.BatchNorm3d, _BatchNorm):
    __doc__ = _batchnorm.BatchNorm3d.__doc__


class SyncBatchNorm(_batchnorm.SyncBatchNorm, _BatchNorm):
    __doc__ = _batchnorm.SyncBatchNorm.__doc__


__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]
