"""``transgrad.nn.modules.linear``: the linear layers and Identity, bound to the compiled engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.linear`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.reference.nn.modules.linear`` (tests/nn/test_nn_namespaces.py keeps the two in
step).
"""

from transgrad._nn.modules import linear as _linear

from .module import Module


class Identity(_linear.Identity, Module):
    __doc__ = _linear.Identity.__doc__


class Linear(_linear.Linear, Module):
    __doc__ = _linear.Linear.__doc__


class Bilinear(_linear.Bilinear, Module):
    __doc__ = _linear.Bilinear.__doc__


class LazyLinear(_linear.LazyLinear, Linear):
    __doc__ = _linear.LazyLinear.__doc__
    cls_to_become = Linear


__all__ = ["Bilinear", "Identity", "LazyLinear", "Linear"]
