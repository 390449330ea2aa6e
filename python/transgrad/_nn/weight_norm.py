"""The older weight normalisation by a forward pre-hook (torch.nn.utils.weight_norm),
engine-neutral; ``parametrizations.weight_norm`` is the newer form.

``weight_norm(module)`` replaces the parameter ``weight`` by ``weight_g`` (its norm over every
dim but ``dim``) and ``weight_v`` (its value), and recomputes ``module.weight = g * v / ||v||``
as a plain attribute before each forward; ``remove_weight_norm`` makes it a parameter again.
"""

from __future__ import annotations

import warnings
from typing import Any

from transgrad._backend import backend_of

from .parameter import is_lazy

_DEPRECATED = ("`torch.nn.utils.weight_norm` is deprecated in favor of "
               "`torch.nn.utils.parametrizations.weight_norm`.")


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_g`` and
    ``<name>_v``."""

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Any) -> Any:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return backend_of(v).module._weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module: Any, name: str, dim: int | None) -> WeightNorm:
        warnings.warn(_DEPRECATED, FutureWarning, stacklevel=3)
        if find_norm_hook(module, WeightNorm, name) is not None:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                               f"parameter {name}")
        fn = WeightNorm(name, -1 if dim is None else dim)
        weight = getattr(module, name)
        if is_lazy(weight):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "weight normalization")
        m = backend_of(weight).module
        del module._parameters[name]
        with m.no_grad():
            g = m.norm_except_dim(weight, 2, fn.dim)
        module.register_parameter(name + "_g", module.Parameter(g.detach()))
        module.register_parameter(name + "_v", module.Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Any) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, module.Parameter(weight.detach()))

    def __call__(self, module: Any, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Any, name: str = "weight", dim: int | None = 0) -> Any:
    """Split ``module.<name>`` into magnitude ``<name>_g`` and direction ``<name>_v``
    (deprecated in torch for ``parametrizations.weight_norm``, with its FutureWarning)."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Any, name: str = "weight") -> Any:
    """Undo ``weight_norm``: ``module.<name>`` is a parameter holding its current value."""
    return remove_norm_hook(module, WeightNorm, name, "weight_norm")


def find_norm_hook(module: Any, kind: type, name: str) -> int | None:
    """The id of ``module``'s forward pre-hook of class ``kind`` for the tensor ``name``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, kind) and getattr(hook, "name", None) == name:
            return k
    return None


def remove_norm_hook(module: Any, kind: type, name: str, what: str) -> Any:
    """Undo the ``kind`` hook (WeightNorm or SpectralNorm) of ``module.<name>``: torch's
    ValueError when there is none."""
    k = find_norm_hook(module, kind, name)
    if k is None:
        raise ValueError(f"{what} of '{name}' not found in {module}")
    module._forward_pre_hooks[k].remove(module)
    del module._forward_pre_hooks[k]
    return module
