"""``transgrad.reference.nn.modules.padding``: the padding layers, bound to the reference engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.padding`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.nn.modules.padding`` (tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn.modules import padding as _padding

from .module import Module


class CircularPad1d(_padding.CircularPad1d, Module):
    __doc__ = _padding.CircularPad1d.__doc__


class CircularPad2d(_padding.CircularPad2d, Module):
    __doc__ = _padding.CircularPad2d.__doc__


class CircularPad3d(_padding.CircularPad3d, Module):
    __doc__ = _padding.CircularPad3d.__doc__


class ConstantPad1d(_padding.ConstantPad1d, Module):
    __doc__ = _padding.ConstantPad1d.__doc__


class ConstantPad2d(_padding.ConstantPad2d, Module):
    __doc__ = _padding.ConstantPad2d.__doc__


class ConstantPad3d(_padding.ConstantPad3d, Module):
    __doc__ = _padding.ConstantPad3d.__doc__


class ReflectionPad1d(_padding.ReflectionPad1d, Module):
    __doc__ = _padding.ReflectionPad1d.__doc__


class ReflectionPad2d(_padding.ReflectionPad2d, Module):
    __doc__ = _padding.ReflectionPad2d.__doc__


class ReflectionPad3d(_padding.ReflectionPad3d, Module):
    __doc__ = _padding.ReflectionPad3d.__doc__


class ReplicationPad1d(_padding.ReplicationPad1d, Module):
    __doc__ = _padding.ReplicationPad1d.__doc__


class ReplicationPad2d(_padding.ReplicationPad2d, Module):
    __doc__ = _padding.ReplicationPad2d.__doc__


class ReplicationPad3d(_padding.ReplicationPad3d, Module):
    __doc__ = _padding.ReplicationPad3d.__doc__


class ZeroPad1d(_padding.ZeroPad1d, Module):
    __doc__ = _padding.ZeroPad1d.__doc__


class ZeroPad2d(_padding.ZeroPad2d, Module):
    __doc__ = _padding.ZeroPad2d.__doc__


class ZeroPad3d(_padding.ZeroPad3d, Module):
    __doc__ = _padding.ZeroPad3d.__doc__


__all__ = [
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]
