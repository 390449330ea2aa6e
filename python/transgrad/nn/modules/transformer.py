"""``transgrad.nn.modules.transformer``: the transformer layers, bound to the compiled engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.transformer`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.reference.nn.modules.transformer``.
"""

from transgrad._nn.modules import transformer as _transformer

from .module import Module


class TransformerEncoderLayer(_transformer.TransformerEncoderLayer, Module):
    __doc__ = _transformer.TransformerEncoderLayer.__doc__


class TransformerEncoder(_transformer.TransformerEncoder, Module):
    __doc__ = _transformer.TransformerEncoder.__doc__


class TransformerDecoderLayer(_transformer.TransformerDecoderLayer, Module):
    __doc__ = _transformer.TransformerDecoderLayer.__doc__


class TransformerDecoder(_transformer.TransformerDecoder, Module):
    __doc__ = _transformer.TransformerDecoder.__doc__


class Transformer(_transformer.Transformer, Module):
    __doc__ = _transformer.Transformer.__doc__


__all__ = ["TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
           "TransformerDecoder", "Transformer"]
