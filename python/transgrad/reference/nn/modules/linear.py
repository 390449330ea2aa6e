"""``transgrad.reference.nn.modules.linear``: the linear layer and Identity, bound to the
reference engine.

Each class is the engine-neutral one of ``transgrad._nn.layers`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py);
the twin file is ``transgrad.nn.modules.linear``
(tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn import layers as _layers

from .module import Module


class Identity(_layers.Identity, Module):
    __doc__ = _layers.Identity.__doc__


class Linear(_layers.Linear, Module):
    __doc__ = _layers.Linear.__doc__


__all__ = ["Identity", "Linear"]
