"""``transgrad.reference.nn.utils.parametrize``: parametrized tensors of modules
(torch.nn.utils.parametrize).

The functions are engine-neutral (``transgrad._nn.parametrize``); ``ParametrizationList``, a
Module, is bound here to the reference engine (Note [Parametrized modules]); the twin file is
``transgrad.nn.utils.parametrize``.
"""

from transgrad._nn import parametrize as _parametrize
from transgrad._nn.parametrize import (
    cached,
    is_parametrized,
    register_parametrization,
    remove_parametrizations,
    type_before_parametrizations,
)

from ..modules.container import ModuleList


class ParametrizationList(_parametrize.ParametrizationList, ModuleList):
    __doc__ = _parametrize.ParametrizationList.__doc__


__all__ = ["ParametrizationList", "cached", "is_parametrized", "register_parametrization",
           "remove_parametrizations", "type_before_parametrizations"]
