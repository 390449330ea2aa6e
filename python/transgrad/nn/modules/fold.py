"""``transgrad.nn.modules.fold``: Fold and Unfold, bound to the compiled engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.fold`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.reference.nn.modules.fold`` (tests/nn/test_nn_namespaces.py keeps the two in
step).
"""

from transgrad._nn.modules import fold as _fold

from .module import Module


class Fold(_fold.Fold, Module):
    __doc__ = _fold.Fold.__doc__


class Unfold(_fold.Unfold, Module):
    __doc__ = _fold.Unfold.__doc__


__all__ = [
    "Fold", "Unfold"
]
