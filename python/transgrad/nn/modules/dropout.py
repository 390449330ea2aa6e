"""``transgrad.nn.modules.dropout``: dropout, bound to the compiled engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.dropout`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.reference.nn.modules.dropout`` (tests/nn/test_nn_namespaces.py keeps the two in
step).
"""

from transgrad._nn.modules import dropout as _dropout

from .module import Module


class Dropout(_dropout.Dropout, Module):
    __doc__ = _dropout.Dropout.__doc__


__all__ = ["Dropout"]
