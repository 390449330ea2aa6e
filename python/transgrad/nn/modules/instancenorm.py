"""``transgrad.nn.modules.instancenorm``: instance normalisation, bound to the compiled engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.instancenorm`` with this
namespace's ``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py);
the twin file is ``transgrad.reference.nn.modules.instancenorm`` (tests/nn/test_nn_namespaces.py
keeps the two in step).
"""

from transgrad._nn.modules import instancenorm as _instancenorm

from .module import Module


class _InstanceNorm(_instancenorm._InstanceNorm, Module):
    __doc__ = _instancenorm._InstanceNorm.__doc__


class InstanceNorm1d(_instancenorm.InstanceNorm1d, _InstanceNorm):
    __doc__ = _instancenorm.InstanceNorm1d.__doc__


class InstanceNorm2d(_instancenorm.InstanceNorm2d, _InstanceNorm):
    __doc__ = _instancenorm.InstanceNorm2d.__doc__


class InstanceNorm3d(_instancenorm.InstanceNorm3d, _InstanceNorm):
    __doc__ = _instancenorm.InstanceNorm3d.__doc__


__all__ = [
    "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"
]
