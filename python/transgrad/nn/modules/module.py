"""``transgrad.nn.modules.module``: ``Module`` of the compiled engine (torch's module path).

The code is ``transgrad._nn.module.Module``; this subclass only names the engine that makes its
layers' parameters (Note [Which engine makes a layer's parameters] in transgrad/_nn/module.py).
Its twin is ``transgrad.reference.nn.modules.module.Module``.
"""

from transgrad._nn import module as _module
from transgrad._nn.module import RemovableHandle, _IncompatibleKeys  # noqa: F401  (torch's paths)


class Module(_module.Module):
    __doc__ = _module.Module.__doc__
    _engine = "transgrad"


__all__ = ["Module"]
