"""``transgrad.reference.nn.modules.container``: containers, bound to the reference engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.container`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.nn.modules.container`` (tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn.modules import container as _container

from .module import Module


class Sequential(_container.Sequential, Module):
    __doc__ = _container.Sequential.__doc__


class ModuleList(_container.ModuleList, Module):
    __doc__ = _container.ModuleList.__doc__


class ModuleDict(_container.ModuleDict, Module):
    __doc__ = _container.ModuleDict.__doc__


class ParameterList(_container.ParameterList, Module):
    __doc__ = _container.ParameterList.__doc__


class ParameterDict(_container.ParameterDict, Module):
    __doc__ = _container.ParameterDict.__doc__


__all__ = [
    "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
]
