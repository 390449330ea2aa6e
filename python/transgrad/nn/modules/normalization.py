"""``transgrad.nn.modules.normalization``: layer, group, RMS and local response normalisation,
bound to the compiled engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.normalization`` with this
namespace's ``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py);
the twin file is ``transgrad.reference.nn.modules.normalization`` (tests/nn/test_nn_namespaces.py
keeps the two in step).
"""

from transgrad._nn.modules import normalization as _normalization

from .module import Module


class LayerNorm(_normalization.LayerNorm, Module):
    __doc__ = _normalization.LayerNorm.__doc__


class GroupNorm(_normalization.GroupNorm, Module):
    __doc__ = _normalization.GroupNorm.__doc__


class RMSNorm(_normalization.RMSNorm, Module):
    __doc__ = _normalization.RMSNorm.__doc__


class LocalResponseNorm(_normalization.LocalResponseNorm, Module):
    __doc__ = _normalization.LocalResponseNorm.__doc__


__all__ = [
    "LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm"
]
