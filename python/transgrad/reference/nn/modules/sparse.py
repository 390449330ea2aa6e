"""``transgrad.reference.nn.modules.sparse``: the embedding table, bound to the reference engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.sparse`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.nn.modules.sparse`` (tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn.modules import sparse as _sparse

from .module import Module


class Embedding(_sparse.Embedding, Module):
    __doc__ = _sparse.Embedding.__doc__


class EmbeddingBag(_sparse.EmbeddingBag, Module):
    __doc__ = _sparse.EmbeddingBag.__doc__


__all__ = [
    "Embedding", "EmbeddingBag"
]
