"""``transgrad.reference.nn.modules.pixelshuffle``: PixelShuffle and PixelUnshuffle, bound to the
reference engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.pixelshuffle`` with this
namespace's ``Module`` as a base (Note [Which engine makes a layer's parameters] in
_nn/module.py); the twin file is ``transgrad.nn.modules.pixelshuffle``
(tests/nn/test_nn_namespaces.py keeps the two in step).
"""

from transgrad._nn.modules import pixelshuffle as _pixelshuffle

from .module import Module


class PixelShuffle(_pixelshuffle.PixelShuffle, Module):
    __doc__ = _pixelshuffle.PixelShuffle.__doc__


class PixelUnshuffle(_pixelshuffle.PixelUnshuffle, Module):
    __doc__ = _pixelshuffle.PixelUnshuffle.__doc__


__all__ = [
    "PixelShuffle", "PixelUnshuffle"
]
