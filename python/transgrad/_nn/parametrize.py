"""Parametrizations of a module's tensors (torch.nn.utils.parametrize), engine-neutral.

Input: a module of either engine, the name of one of its parameters or buffers and a
parametrization (a Module mapping the stored tensor to the one the module uses, optionally with
``right_inverse``). Output: ``module.<name>`` computed from
``module.parametrizations.<name>.original`` (or ``original0``, ``original1``, ... when
``right_inverse`` returns several tensors) on every access, as torch.

Note [Parametrized modules]
As torch does, registering the first parametrization of a module replaces its class by a
subclass named ``Parametrized<Name>`` that has one property per parametrized tensor (its getter
runs ``ParametrizationList.forward``, its setter ``right_inverse``); the originals live in a
``ParametrizationList`` (a ModuleList) under a ``parametrizations`` ModuleDict, so the state
dict keys are torch's (``parametrizations.weight.original``). ``ParametrizationList`` is a
Module, so it is bound to each engine like the layers (``nn/utils/parametrize.py`` of each
namespace); the functions here find the module's engine from ``module._engine``. Torch's
``original.set_(new)`` (keep the Parameter object, take the new value) is a copy in place when
the shapes agree and a ``.data`` assignment otherwise.
"""

from __future__ import annotations

import collections.abc
import contextlib
import copy
import importlib
from collections.abc import Iterator
from typing import Any

from transgrad._backend import backend_of, is_tensor

from .modules.container import ModuleDict, ModuleList
from .parameter import ParameterMixin

_cache_enabled = 0
_cache: dict[tuple[int, str], Any] = {}


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Within the block, each parametrized tensor is computed once, on first use."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Any, name: str, value: Any) -> None:
    if isinstance(value, ParameterMixin):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set(dest: Any, src: Any) -> None:
    """``dest`` takes ``src``'s value, keeping its identity (torch's ``dest.set_(src)``)."""
    E = backend_of(dest)
    with E.no_grad():
        if tuple(dest.shape) == tuple(src.shape):
            dest.copy_(src)
        else:
            dest.data = src.detach()


def _engine_nn(module: Any, sub: str = "") -> Any:
    if getattr(module, "_engine", None) is None:
        raise TypeError(f"{type(module).__qualname__} has no engine: parametrize modules of "
                        "transgrad.nn or transgrad.reference.nn")
    return importlib.import_module(f"{module._engine}.nn{sub}")


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in order, and its ``original`` tensor(s): the type
    of ``module.parametrizations[name]`` (Note [Parametrized modules])."""

    original: Any
    unsafe: bool
    is_tensor: bool
    ntensors: int

    def __init__(self, modules: Any, original: Any, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = tuple(original.shape), original.dtype
        E = backend_of(original)
        with E.no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not is_tensor(new) and not isinstance(new, collections.abc.Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = is_tensor(new)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 f"the dtype.\noriginal.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            _set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not is_tensor(originali):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     "tensors (list, tuple...). Got element "
                                     f"{i} of the sequence with type {type(originali).__name__}.")
                if isinstance(original, ParameterMixin):
                    param_cls: Any = type(original)
                    originali = param_cls(originali.detach(), original.requires_grad)
                else:
                    originali = originali.detach().requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not self.unsafe:
            Z = self()
            if not is_tensor(Z):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(Z).__name__}.")
            if Z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of "
                                 "the tensor, unless `unsafe` flag is enabled.\n"
                                 f"unparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {Z.dtype}")
            if tuple(Z.shape) != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of "
                                 "the tensor, unless `unsafe` flag is enabled.\n"
                                 f"unparametrized shape: {original.shape}\n"
                                 f"parametrized shape: {Z.shape}")

    def right_inverse(self, value: Any) -> None:
        """Set the originals so that the parametrized tensor is ``value`` (each
        parametrization's ``right_inverse``, last first)."""
        with backend_of(value).no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not is_tensor(value):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype "
                                     f"{value.dtype} while `original` has dtype "
                                     f"{self.original.dtype}")
                _set(self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError("'right_inverse' must return a sequence of tensors. Got "
                                     f"{type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError("'right_inverse' must return a sequence of tensors of "
                                     f"length {self.ntensors}. Got a sequence of length "
                                     f"{len(value)}.")
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if tensor.dtype != original_i.dtype:
                        raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype "
                                         f"{tensor.dtype} while `original{i}` has dtype "
                                         f"{original_i.dtype}")
                    _set(original_i, tensor)

    def forward(self) -> Any:
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _inject_new_class(module: Any) -> None:
    """Make ``module`` an instance of ``Parametrized<its class>`` (Note [Parametrized
    modules])."""
    cls = type(module)

    def getstate(self: Any) -> Any:
        raise RuntimeError("Serialization of parametrized modules is only supported through "
                           "state_dict(). See:\nhttps://pytorch.org/tutorials/beginner/"
                           "saving_loading_models.html#saving-loading-a-general-checkpoint-for-"
                           "inference-and-or-resuming-training")

    def default_deepcopy(self: Any, memo: dict) -> Any:
        # pickling is refused (getstate), so copy.deepcopy needs its own path, as in torch:
        # the same Parametrized class, a deep copy of the instance dict
        if id(self) in memo:
            return memo[id(self)]
        replica = object.__new__(type(self))
        memo[id(self)] = replica
        object.__setattr__(replica, "__dict__", copy.deepcopy(self.__dict__, memo))
        return replica

    namespace: dict[str, Any] = {"__getstate__": getstate, "__module__": cls.__module__}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module: Any, tensor_name: str) -> None:
    if hasattr(type(module), tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self: Any) -> Any:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        if _cache.get(key) is None:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self: Any, value: Any) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(type(module), tensor_name, property(get_parametrized, set_original))


def register_parametrization(module: Any, tensor_name: str, parametrization: Any, *,
                             unsafe: bool = False) -> Any:
    """Parametrize ``module.<tensor_name>`` by ``parametrization`` (appended after any earlier
    ones), as torch: checks that it keeps the tensor's dtype and shape unless ``unsafe``."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if not is_tensor(X):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(X).__name__}.")
            if X.dtype != Y.dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the "
                                 "tensor, unless the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.dtype: {Y.dtype}\n"
                                 f"parametrization(module.{tensor_name}).dtype: {X.dtype}")
            if tuple(X.shape) != tuple(Y.shape):
                raise ValueError("Registering a parametrization may not change the shape of the "
                                 "tensor, unless the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.shape: {Y.shape}\n"
                                 f"parametrization(module.{tensor_name}).shape: {X.shape}")
            if hasattr(parametrization, "right_inverse"):
                try:
                    Z = parametrization.right_inverse(X)
                except NotImplementedError:
                    pass
                else:
                    if not is_tensor(Z):
                        raise ValueError("parametrization.right_inverse must return a tensor. "
                                         f"Got: {type(Z).__name__}")
                    if Z.dtype != Y.dtype:
                        raise ValueError(
                            "The tensor returned by parametrization.right_inverse must have the "
                            f"same dtype as module.{tensor_name}, unless the `unsafe` flag is "
                            f"enabled.\nmodule.{tensor_name}.dtype: {Y.dtype}\n"
                            f"returned dtype: {Z.dtype}")
                    if tuple(Z.shape) != tuple(Y.shape):
                        raise ValueError(
                            "The tensor returned by parametrization.right_inverse must have the "
                            f"same shape as module.{tensor_name}, unless the `unsafe` flag is "
                            f"enabled.\nmodule.{tensor_name}.shape: {Y.shape}\n"
                            f"returned shape: {Z.shape}")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = _engine_nn(module, ".utils.parametrize").ParametrizationList(
            [parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = _engine_nn(module).ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module: Any, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization (on ``tensor_name``, when given)."""
    found = getattr(module, "parametrizations", None)
    if not isinstance(found, ModuleDict):
        return False
    parametrizations: Any = found
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Any, tensor_name: str, leave_parametrized: bool = True
                            ) -> Any:
    """Undo the parametrizations of ``module.<tensor_name>``: it becomes a plain parameter or
    buffer again, holding its parametrized value (``leave_parametrized``) or its original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with backend_of(original).no_grad():
                t = getattr(module, tensor_name)
            _set(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        with backend_of(parametrizations.original0).no_grad():
            t = getattr(module, tensor_name)
        if isinstance(parametrizations.original0, ParameterMixin):
            param_cls: Any = type(parametrizations.original0)
            original = param_cls(t.detach(), t.requires_grad)
        else:
            original = t.detach()
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module: Any) -> type:
    """The class of ``module`` before it was parametrized."""
    if is_parametrized(module):
        return type(module).__bases__[0]
    return type(module)
