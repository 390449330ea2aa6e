"""``transgrad.nn.modules.flatten``: Flatten, bound to the compiled engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.flatten`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.reference.nn.modules.flatten`` (tests/nn/test_nn_namespaces.py keeps the two in
step).
"""

from transgrad._nn.modules import flatten as _flatten

from .module import Module


class Flatten(_flatten.Flatten, Module):
    __doc__ = _flatten.Flatten.__doc__


class Unflatten(_flatten.Unflatten, Module):
    __doc__ = _flatten.Unflatten.__doc__


__all__ = [
    "Flatten", "Unflatten"
]
