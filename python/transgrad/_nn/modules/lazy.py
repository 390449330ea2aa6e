"""Engine-neutral lazy modules (torch.nn.modules.lazy): shapes inferred from the first input.

``LazyModuleMixin`` is what ``LazyLinear`` (linear.py) and ``LazyConv*``/``LazyConvTranspose*``
(conv.py) add to their eager class: parameters that are ``UninitializedParameter`` until the
first call, a forward pre-hook that materialises them from the input and then turns the module
into its eager class (``cls_to_become``, set by each engine's binding class), and a
load-state-dict pre-hook that materialises them from a checkpoint instead.
"""

from __future__ import annotations

import importlib
import itertools
from typing import Any

from ..parameter import is_lazy


class LazyModuleMixin:
    """Mixin of a lazy module: subclasses define ``initialize_parameters(*args, **kwargs)``
    (materialise every uninitialised parameter from the input) and bind ``cls_to_become``."""

    cls_to_become: type | None = None
    _parameters: dict
    _buffers: dict

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        module: Any = self
        self._load_hook = module._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = module.register_forward_pre_hook(self._infer_parameters,
                                                                 with_kwargs=True)

    def _uninitialized_parameter(self, dtype: Any = None) -> Any:
        """A new UninitializedParameter of this module's engine."""
        engine = getattr(self, "_engine", None)
        if engine is None:
            raise TypeError(f"{type(self).__qualname__} has no engine: use the layers of "
                            "transgrad.nn or transgrad.reference.nn")
        return importlib.import_module(f"{engine}.nn.parameter").UninitializedParameter(
            dtype=dtype)

    def _lazy_load_hook(self, state_dict: Any, prefix: str, local_metadata: Any, strict: bool,
                        missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        """Materialise each uninitialised parameter that the checkpoint gives a value for, in
        the checkpoint's shape (torch's ``_lazy_load_hook``)."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param):
                value = state_dict[key]
                if not is_lazy(value):
                    param.materialize(tuple(value.shape))

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether some parameter or buffer of this module is still uninitialised."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(),
                                                        self._buffers.values()))

    def _infer_parameters(self, module: Any, args: tuple, kwargs: Any = None) -> None:
        """The forward pre-hook: materialise from the first input, then become the eager
        class and drop the hooks (torch's order)."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _get_name(self) -> str:
        return type(self).__name__
