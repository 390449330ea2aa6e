"""``transgrad.nn.modules.distance``: CosineSimilarity and PairwiseDistance,
bound to the compiled engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.distance`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.reference.nn.modules.distance`` (tests/nn/test_nn_namespaces.py keeps the two in
step).
"""

from transgrad._nn.modules import distance as _distance

from .module import Module


class CosineSimilarity(_distance.CosineSimilarity, Module):
    __doc__ = _distance.CosineSimilarity.__doc__


class PairwiseDistance(_distance.PairwiseDistance, Module):
    __doc__ = _distance.PairwiseDistance.__doc__


__all__ = [
    "CosineSimilarity", "PairwiseDistance"
]
