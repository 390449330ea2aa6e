"""``transgrad.nn.modules.upsampling``: Upsample, bound to the compiled engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.upsampling`` with this
namespace's ``Module`` as a base (Note [Which engine makes a layer's parameters] in
_nn/module.py); the twin file is ``transgrad.reference.nn.modules.upsampling``
(tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn.modules import upsampling as _upsampling

from .module import Module


class Upsample(_upsampling.Upsample, Module):
    __doc__ = _upsampling.Upsample.__doc__


class UpsamplingNearest2d(_upsampling.UpsamplingNearest2d, Upsample):
    __doc__ = _upsampling.UpsamplingNearest2d.__doc__


class UpsamplingBilinear2d(_upsampling.UpsamplingBilinear2d, Upsample):
    __doc__ = _upsampling.UpsamplingBilinear2d.__doc__


__all__ = [
    "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"
]
