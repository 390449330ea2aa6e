"""``transgrad.nn.modules.container``: containers, bound to the compiled engine.

Each class is the engine-neutral one of ``transgrad._nn.layers`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py);
the twin file is ``transgrad.reference.nn.modules.container``
(tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn import layers as _layers

from .module import Module


class Sequential(_layers.Sequential, Module):
    __doc__ = _layers.Sequential.__doc__


class ModuleList(_layers.ModuleList, Module):
    __doc__ = _layers.ModuleList.__doc__


class ModuleDict(_layers.ModuleDict, Module):
    __doc__ = _layers.ModuleDict.__doc__


class ParameterList(_layers.ParameterList, Module):
    __doc__ = _layers.ParameterList.__doc__


class ParameterDict(_layers.ParameterDict, Module):
    __doc__ = _layers.ParameterDict.__doc__


__all__ = [
    "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
]
