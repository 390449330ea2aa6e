"""``transgrad.reference.nn.modules.module``: ``Module`` of the reference engine (torch's module
path).

The code is ``transgrad._nn.module.Module``; this subclass only names the engine that makes its
layers' parameters (Note [Which engine makes a layer's parameters] in transgrad/_nn/module.py).
Its twin is ``transgrad.nn.modules.module.Module``.
"""

from transgrad._nn import module as _module
from transgrad._nn.module import (  # noqa: F401  (torch's paths)
    RemovableHandle,
    _IncompatibleKeys,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)


class Module(_module.Module):
    __doc__ = _module.Module.__doc__
    _engine = "transgrad.reference"


__all__ = ["Module"]
