"""``transgrad.reference.nn.modules.sparse``: the embedding table, bound to the reference engine.

Each class is the engine-neutral one of ``transgrad._nn.layers`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py);
the twin file is ``transgrad.nn.modules.sparse``
(tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn import layers as _layers

from .module import Module


class Embedding(_layers.Embedding, Module):
    __doc__ = _layers.Embedding.__doc__


__all__ = ["Embedding"]
