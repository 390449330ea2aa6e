"""nn.Module, engine-neutral: registration, traversal, state, modes, repr.

``Module`` is written once; ``transgrad.nn.Module`` and ``transgrad.reference.nn.Module`` are
one-line subclasses naming their engine in ``_engine`` (Note [Which engine makes a layer's
parameters]), so the same code makes compiled or reference parameters (the layers are in
``modules/``).

Behaviour follows ``torch.nn`` for what it covers: registration by assignment,
``parameters``/``named_parameters``/``modules``, ``state_dict`` (tensors sharing memory with
the module) and ``load_state_dict`` (copies in place, keeps the Parameter objects),
``train``/``eval``, ``zero_grad``, torch-style ``repr``.
"""

from __future__ import annotations

import collections
import collections.abc
import functools
import importlib
from collections.abc import Iterator
from typing import Any

from transgrad._backend import Backend, backend_named, backend_of
from transgrad._backend import is_tensor as _engine_tensor
from transgrad._device import check_device, is_device_like
from transgrad._dtypes import as_dtype

from .parameter import ParameterMixin, UninitializedTensorMixin

# Note [Which engine makes a layer's parameters]
# torch code writes ``nn.Linear(3, 4)`` with no engine argument, and the same words must make
# compiled parameters after ``import transgrad as torch`` and reference ones after ``import
# transgrad.reference as torch``. One class cannot know the namespace it was reached through,
# and a process-wide default engine would let one namespace change the other's layers. So the
# engine is a class attribute, ``Module._engine`` (the engine module's name), None on the
# engine-neutral classes written here and set by explicit one-line subclasses in
# ``transgrad/nn/modules/`` (compiled) and ``transgrad/reference/nn/modules/`` (reference):
# ``class Linear(linear.Linear, Module)`` where ``Module`` is that namespace's. A user's
# ``class Net(torch.nn.Module)`` inherits the engine of the namespace it subclasses, and
# ``isinstance(layer, torch.nn.Module)`` holds within a namespace. The price is one line per
# layer and namespace, written by hand; tests/nn/test_nn_namespaces.py checks that both
# namespaces bind the same layers. Everything that receives a tensor (functional, utils,
# init, the optimizers) takes the engine from the tensor instead and is shared as is.
# Adding a layer: the class in ``_nn/modules/<torch's file>.py``, then one binding class in
# that file under both ``nn/modules/`` and ``reference/nn/modules/`` and its name in the two
# import lists; test_nn_namespaces.py fails until all of it is done.

def dtype_arg(E: Backend, dtype: Any) -> Any:
    """A layer's ``dtype=`` argument: None means the engine's default dtype."""
    return E.default_dtype if dtype is None else as_dtype(dtype)


class _IncompatibleKeys(collections.namedtuple("IncompatibleKeys",
                                                ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns, printed as torch prints it."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """Returned by the hook registrations: ``remove()`` unregisters the hook (as
    torch.utils.hooks.RemovableHandle)."""

    _next_id = 0

    def __init__(self, *stores: dict | set) -> None:
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1
        self._stores = stores

    def remove(self) -> None:
        for store in self._stores:
            if isinstance(store, set):
                store.discard(self.id)
            else:
                store.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


# Note [Global module hooks]
# torch keeps one set of hooks that every Module runs (``register_module_forward_hook`` & co in
# torch.nn.modules.module): those of both engines' modules live here, run before each module's
# own hooks of the same kind, as torch orders them.
_global_forward_pre_hooks: collections.OrderedDict[int, Any] = collections.OrderedDict()
_global_forward_hooks: collections.OrderedDict[int, Any] = collections.OrderedDict()
_global_forward_hooks_with_kwargs: set[int] = set()
_global_backward_pre_hooks: collections.OrderedDict[int, Any] = collections.OrderedDict()
_global_backward_hooks: collections.OrderedDict[int, Any] = collections.OrderedDict()
_global_buffer_registration_hooks: collections.OrderedDict[int, Any] = collections.OrderedDict()
_global_module_registration_hooks: collections.OrderedDict[int, Any] = collections.OrderedDict()
_global_parameter_registration_hooks: collections.OrderedDict[int, Any] = (
    collections.OrderedDict())


def _add_global_hook(store: dict, entry: Any, *more_stores: dict | set) -> RemovableHandle:
    handle = RemovableHandle(store, *more_stores)
    store[handle.id] = entry
    return handle


def register_module_forward_pre_hook(hook: Any) -> RemovableHandle:
    """``hook(module, args)`` before every module's forward (Note [Global module hooks])."""
    return _add_global_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook: Any, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with
    ``with_kwargs``) after every module's forward (Note [Global module hooks])."""
    handle = _add_global_hook(_global_forward_hooks, (hook, always_call),
                              _global_forward_hooks_with_kwargs)
    if with_kwargs:
        _global_forward_hooks_with_kwargs.add(handle.id)
    return handle


def register_module_full_backward_pre_hook(hook: Any) -> RemovableHandle:
    """``hook(module, grad_output)`` for every module, as ``register_full_backward_pre_hook``
    (Note [Global module hooks])."""
    return _add_global_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook: Any) -> RemovableHandle:
    """``hook(module, grad_input, grad_output)`` for every module, as
    ``register_full_backward_hook`` (Note [Global module hooks])."""
    return _add_global_hook(_global_backward_hooks, hook)


def register_module_buffer_registration_hook(hook: Any) -> RemovableHandle:
    """``hook(module, name, buffer)`` on every buffer registration; a non-None result is
    registered instead."""
    return _add_global_hook(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook: Any) -> RemovableHandle:
    """``hook(module, name, submodule)`` on every submodule registration; a non-None result
    is registered instead."""
    return _add_global_hook(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook: Any) -> RemovableHandle:
    """``hook(module, name, param)`` on every parameter registration; a non-None result is
    registered instead."""
    return _add_global_hook(_global_parameter_registration_hooks, hook)


def _registration_hooks(hooks: dict, module: Any, name: str, value: Any) -> Any:
    for hook in list(hooks.values()):
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value


def _check_name(kind: str, module: Any, name: Any, store: dict) -> None:
    """torch's checks on a registered name (KeyError/TypeError, torch's words)."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(module, name) and name not in store:
        raise KeyError(f"attribute '{name}' already exists")


class Module:
    """Base class of layers and models: assign Parameters and Modules as attributes."""

    _engine: str | None = None  # Note [Which engine makes a layer's parameters]
    training: bool

    @property
    def _E(self) -> Backend:
        """The adapter of the engine that makes this module's parameters."""
        if self._engine is None:
            raise TypeError(f"{type(self).__qualname__} has no engine: use the layers of "
                            "transgrad.nn or transgrad.reference.nn (Note [Which engine makes "
                            "a layer's parameters])")
        return backend_named(self._engine)

    @property
    def Parameter(self) -> type:
        """The Parameter class of this module's engine."""
        return importlib.import_module(f"{self._E.name}.nn.parameter").Parameter

    def __init__(self) -> None:
        for name in ("_parameters", "_buffers", "_modules", "_forward_pre_hooks",
                     "_forward_hooks", "_backward_pre_hooks", "_backward_hooks",
                     "_state_dict_pre_hooks", "_state_dict_hooks",
                     "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks"):
            object.__setattr__(self, name, collections.OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_forward_pre_hooks_with_kwargs", set())
        object.__setattr__(self, "_forward_hooks_with_kwargs", set())
        object.__setattr__(self, "training", True)

    # -- registration ----------------------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {name!r} before Module.__init__() is called "
                                 f"(call super().__init__() first in {type(self).__name__})")
        params, buffers, modules = self._parameters, self._buffers, self._modules
        if _is_parameter(self, value):
            self._discard(name, params)
            params[name] = _registration_hooks(_global_parameter_registration_hooks, self, name,
                                               value)
        elif isinstance(value, Module):
            self._discard(name, modules)
            modules[name] = _registration_hooks(_global_module_registration_hooks, self, name,
                                                value)
        elif name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            params[name] = None
        elif name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module "
                                f"'{name}' (torch.nn.Module or None expected)")
            modules[name] = None
        elif name in buffers:
            buffers[name] = _registration_hooks(_global_buffer_registration_hooks, self, name,
                                                value)
        else:
            object.__setattr__(self, name, value)

    def _discard(self, name: str, keep: dict | None = None) -> None:
        """Forget ``name`` everywhere but in ``keep``, the store about to receive it: an entry
        replaced there keeps its place, so the state dict order stays torch's."""
        self.__dict__.pop(name, None)
        for d in (self._parameters, self._buffers, self._modules):
            if d is not keep:
                d.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for store in (self._parameters, self._buffers, self._modules):
            if name in store:
                del store[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Any) -> None:
        """Add ``param`` (a Parameter of this module's engine, or None) as ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", self, name, self._parameters)
        if param is not None and not _is_parameter(self, param):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter "
                            f"'{name}' (torch.nn.Parameter or None required)")
        self._discard(name, self._parameters)
        self._parameters[name] = _registration_hooks(_global_parameter_registration_hooks, self,
                                                     name, param)

    def register_buffer(self, name: str, tensor: Any, persistent: bool = True) -> None:
        """Add ``tensor`` (or None) as the buffer ``name``: in ``state_dict`` when
        ``persistent``, in ``buffers()`` either way."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", self, name, self._buffers)
        if tensor is not None and not _is_tensor(tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer "
                            f"'{name}' (torch Tensor or None required)")
        self._discard(name, self._buffers)
        self._buffers[name] = _registration_hooks(_global_buffer_registration_hooks, self, name,
                                                  tensor)
        if not persistent:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        _check_name("module", self, name, self._modules)
        self._discard(name, self._modules)
        self._modules[name] = _registration_hooks(_global_module_registration_hooks, self, name,
                                                  module)

    def register_module(self, name: str, module: Module | None) -> None:
        self.add_module(name, module)

    # -- hooks -----------------------------------------------------------------------------

    def register_forward_pre_hook(self, hook: Any, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` (or ``hook(module, args, kwargs)`` with ``with_kwargs``)
        before ``forward``; a non-None result replaces the arguments."""
        handle = RemovableHandle(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs)
        _add_hook(self._forward_pre_hooks, handle.id, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle.id)
        return handle

    def register_forward_hook(self, hook: Any, *, prepend: bool = False,
                              with_kwargs: bool = False, always_call: bool = False
                              ) -> RemovableHandle:
        """``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)``) after
        ``forward``; a non-None result replaces the output. (``always_call``, torch's "run even
        if forward raised", is honoured too.)"""
        handle = RemovableHandle(self._forward_hooks, self._forward_hooks_with_kwargs)
        _add_hook(self._forward_hooks, handle.id, (hook, always_call), prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(handle.id)
        return handle

    def register_full_backward_pre_hook(self, hook: Any, prepend: bool = False
                                        ) -> RemovableHandle:
        """``hook(module, grad_output)`` when the gradients of the module's outputs are
        computed; a non-None result (a tuple as long as ``grad_output``) replaces them
        (Note [Module backward hooks])."""
        handle = RemovableHandle(self._backward_pre_hooks)
        _add_hook(self._backward_pre_hooks, handle.id, hook, prepend)
        return handle

    def register_full_backward_hook(self, hook: Any, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` when the gradients of the module's
        positional tensor inputs are computed; a non-None result replaces ``grad_input``
        (Note [Module backward hooks])."""
        handle = RemovableHandle(self._backward_hooks)
        _add_hook(self._backward_hooks, handle.id, hook, prepend)
        return handle

    def register_state_dict_pre_hook(self, hook: Any) -> RemovableHandle:
        """``hook(module, prefix, keep_vars)`` before ``state_dict`` collects this module's
        entries."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook: Any) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` after ``state_dict``; it may
        change ``state_dict`` in place and must return None."""
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = (hook, True)
        return handle

    def _register_state_dict_hook(self, hook: Any) -> RemovableHandle:
        """As ``register_state_dict_post_hook``, but a non-None result replaces the state
        dict (torch's older private form)."""
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = (hook, False)
        return handle

    def _register_load_state_dict_pre_hook(self, hook: Any, with_module: bool = False
                                           ) -> RemovableHandle:
        """``hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)`` (the module first with ``with_module``) before ``load_state_dict``
        reads this module's entries: it may rename or add entries of ``state_dict``."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = (
            functools.partial(hook, self) if with_module else hook)
        return handle

    def register_load_state_dict_pre_hook(self, hook: Any) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before ``load_state_dict`` reads this module's
        entries."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook: Any) -> RemovableHandle:
        """``hook(module, incompatible_keys)`` after ``load_state_dict``; it may edit the
        missing and unexpected key lists, which ``strict`` then checks."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # -- running ---------------------------------------------------------------------------

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_pre_hooks
                or _global_forward_hooks or _global_backward_hooks
                or _global_backward_pre_hooks):
            return self.forward(*args, **kwargs)
        for hook in list(_global_forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        for hid, hook in list(self._forward_pre_hooks.items()):
            if hid in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        backward_hook = None
        if (self._backward_hooks or self._backward_pre_hooks or _global_backward_hooks
                or _global_backward_pre_hooks):
            from .backward_hooks import BackwardHook

            backward_hook = BackwardHook(
                self, [*_global_backward_hooks.values(), *self._backward_hooks.values()],
                [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()])
            args = backward_hook.setup_input_hook(args)
        forward_hooks = [(hid, hook, always, hid in _global_forward_hooks_with_kwargs)
                         for hid, (hook, always) in _global_forward_hooks.items()]
        forward_hooks += [(hid, hook, always, hid in self._forward_hooks_with_kwargs)
                          for hid, (hook, always) in self._forward_hooks.items()]
        try:
            output = self.forward(*args, **kwargs)
        except Exception:
            for _hid, hook, always, with_kwargs in forward_hooks:
                if always:
                    self._run_forward_hook(hook, with_kwargs, args, kwargs, None)
            raise
        for _hid, hook, _always, with_kwargs in forward_hooks:
            result = self._run_forward_hook(hook, with_kwargs, args, kwargs, output)
            if result is not None:
                output = result
        if backward_hook is not None:
            output = backward_hook.setup_output_hook(output)
        return output

    def _run_forward_hook(self, hook: Any, with_kwargs: bool, args: tuple, kwargs: dict,
                          output: Any) -> Any:
        if with_kwargs:
            return hook(self, args, kwargs, output)
        return hook(self, args, output)

    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            _zero_grad(p, set_to_none)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def apply(self, fn: Any) -> Module:
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def to(self, *args: Any, device: Any = None, dtype: Any = None,
           non_blocking: bool = False, memory_format: Any = None) -> Module:
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)`` as torch's: the
        CPU is the one device (another raises); floating parameters and buffers are converted
        to ``dtype``, each Parameter in place (Note [Module.to keeps the Parameters])."""
        for a in args:
            if _engine_tensor(a):
                device, dtype = None, a.dtype
            elif is_device_like(a):
                device = a
            else:
                dtype = a
        check_device(device)
        if dtype is None:
            return self
        E = self._E
        dtype = dtype_arg(E, dtype)
        if not (_is_floating_dtype(dtype) or dtype.kind == "c"):
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")
        return self._convert_floating(dtype)

    # Note [Module.to keeps the Parameters]
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # torch's Module._apply converts a parameter by ``param.data = fn(param)``: the Parameter
    # object stays (and its ``.grad`` object too, converted the same way), so an optimizer built
    # before ``model.double()`` still steps the model's parameters. Buffers, which no optimizer
    # holds, are replaced by the converted tensors, as torch's; integer ones (BatchNorm's
    # ``num_batches_tracked``) are left alone. Replacing the Parameters instead, as transgrad
    # once did, left such an optimizer stepping orphaned float32 tensors: the model never learnt.
    def _convert_floating(self, dtype: Any) -> Module:
        E = self._E
        with E.no_grad():
            for m in self.modules():
                for p in m._parameters.values():
                    if _is_lazy(p) and p.dtype != dtype:  # stays uninitialised, as torch
                        p.data = E.module.empty(0, dtype=dtype)
                    elif p is not None and _is_floating(p) and p.dtype != dtype:
                        p.data = p.detach().to(dtype)
                        if p.grad is not None and p.grad.dtype != dtype:
                            p.grad.data = p.grad.detach().to(dtype)
                for name, b in list(m._buffers.items()):
                    if b is not None and _is_floating(b) and b.dtype != dtype:
                        m._buffers[name] = b.detach().to(dtype)
        return self

    def to_empty(self, *, device: Any, recurse: bool = True) -> Module:
        """Every parameter and buffer given uninitialised storage of its shape and dtype on
        ``device`` (the CPU), as torch: the Parameter objects stay, their data is new."""
        check_device(device)
        E = self._E
        for m in (self.modules() if recurse else [self]):
            for p in m._parameters.values():
                if p is not None:
                    p.data = E.module.empty_like(p.detach())
            for name, b in list(m._buffers.items()):
                if b is not None:
                    m._buffers[name] = E.module.empty_like(b)
        return self

    def share_memory(self) -> Module:
        """torch moves CPU storage to shared memory for other processes; transgrad has no
        tensor sharing between processes, so the tensors stay as they are (an uninitialised
        parameter raises torch's error)."""
        for t in list(self.parameters()) + list(self.buffers()):
            if _is_lazy(t):
                t.share_memory_()
        return self

    def cpu(self) -> Module:
        return self

    def cuda(self, device: Any = None) -> Module:
        check_device("cuda" if device is None else device)  # raises: there is no CUDA device
        return self

    def double(self) -> Module:
        return self.to(self._E.module.float64)

    def float(self) -> Module:
        return self.to(self._E.module.float32)

    def half(self) -> Module:
        return self.to(self._E.module.float16)

    def bfloat16(self) -> Module:
        return self.to(self._E.module.bfloat16)

    # -- traversal -------------------------------------------------------------------------

    def _named_members(self, store: str, prefix: str, recurse: bool,
                       remove_duplicate: bool) -> Iterator[tuple[str, Any]]:
        seen: set[int] = set()
        mods = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                if recurse else [(prefix, self)])
        for mprefix, m in mods:
            for name, t in getattr(m, store).items():
                if t is None or (remove_duplicate and id(t) in seen):
                    continue
                seen.add(id(t))
                yield (f"{mprefix}.{name}" if mprefix else name), t

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Any]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Any]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        memo = set() if memo is None else memo
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, f"{prefix}.{name}" if prefix else name,
                                           remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path ``target`` ("" is this module)."""
        mod: Any = self
        for item in target.split(".") if target else []:
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at the dotted path ``target`` (replacing what is there; with
        ``strict`` only replacing an existing submodule), torch's errors."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(f"{parent._get_name()} has no attribute `{atoms[-1]}`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError(f"`{atoms[-1]}` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str) -> Any:
        """The parameter at the dotted path ``target``."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        param = getattr(mod, name)
        if not isinstance(param, ParameterMixin):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Any:
        """The buffer at the dotted path ``target``."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(mod, name)

    __hash__ = object.__hash__

    # -- state -----------------------------------------------------------------------------

    def _state_entries(self) -> Iterator[tuple[str, Module, str, bool]]:
        """(dotted name, owner, local name, is_parameter) of every state_dict entry; a module
        reached by two paths is listed under both, as torch does."""
        for mprefix, m in self.named_modules(remove_duplicate=False):
            for name, t in m._parameters.items():
                if t is not None:
                    yield (f"{mprefix}.{name}" if mprefix else name), m, name, True
            for name, t in m._buffers.items():
                if t is not None and name not in m._non_persistent_buffers_set:
                    yield (f"{mprefix}.{name}" if mprefix else name), m, name, False

    def state_dict(self, *, destination: Any = None, prefix: str = "",
                   keep_vars: bool = False) -> Any:
        """Parameters and persistent buffers by dotted name, detached (sharing memory with the
        module) unless ``keep_vars``; the state-dict hooks of each module run around it."""
        out = collections.OrderedDict() if destination is None else destination
        modules = list(self.named_modules(remove_duplicate=False))
        for mprefix, m in modules:
            for hook in list(m._state_dict_pre_hooks.values()):
                hook(m, _sub_prefix(prefix, mprefix), keep_vars)
        for key, m, name, is_param in self._state_entries():
            t = (m._parameters if is_param else m._buffers)[name]
            out[prefix + key] = t if keep_vars or _is_lazy(t) else t.detach()
        for mprefix, m in modules:
            for hook, public in list(m._state_dict_hooks.values()):
                result = hook(m, out, _sub_prefix(prefix, mprefix), {})
                if result is not None and public:
                    raise RuntimeError("state_dict post-hook must return None")
                if result is not None:
                    out = result
        return out

    def load_state_dict(self, state_dict: Any, strict: bool = True, assign: bool = False
                        ) -> _IncompatibleKeys:
        """Copy values in place into this module's parameters and persistent buffers (the
        Parameter objects stay the same, so optimizers keep working), or with ``assign`` put
        the given tensors in their place (as Parameters where a Parameter was, keeping its
        ``requires_grad``). Returns torch's ``_IncompatibleKeys``; raises torch's RuntimeError
        for missing or unexpected keys when ``strict`` and for shape mismatches always, before
        changing anything. The load-state-dict hooks of each module run around it."""
        if not isinstance(state_dict, collections.abc.Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        state_dict = collections.OrderedDict(state_dict)  # the pre-hooks may edit it
        pre_missing: list[str] = []
        pre_unexpected: list[str] = []
        errors: list[str] = []
        modules = list(self.named_modules())
        for mprefix, m in modules:
            for hook in list(m._load_state_dict_pre_hooks.values()):
                hook(state_dict, _sub_prefix("", mprefix), {}, strict, pre_missing,
                     pre_unexpected, errors)
        own = {key: (m, name, is_param) for key, m, name, is_param in self._state_entries()}
        missing = pre_missing + [k for k in own if k not in state_dict]
        unexpected = pre_unexpected + [k for k in state_dict if k not in own]
        for key, (m, name, is_param) in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            cur = (m._parameters if is_param else m._buffers)[name]
            if tuple(value.shape) != tuple(cur.shape):
                errors.append(f"size mismatch for {key}: copying a param with shape "
                              f"{value.shape!r} from checkpoint, the shape in current model is "
                              f"{cur.shape!r}.")
        result = _IncompatibleKeys(missing, unexpected)
        if not errors:
            for key, (m, name, is_param) in own.items():
                if key in state_dict:
                    store = m._parameters if is_param else m._buffers
                    cur = store[name]
                    E = backend_of(cur)
                    if not assign:
                        E.assign_(cur, _as_engine_tensor(E, state_dict[key], cur.dtype))
                        continue
                    value = state_dict[key]  # assign: the given tensor itself, as torch
                    if not isinstance(value, E.Tensor):
                        value = E.module.as_tensor(value)
                    if is_param:
                        store[name] = m.Parameter(value, requires_grad=cur.requires_grad)
                    else:
                        store[name] = value
            for _mprefix, m in modules:
                for hook in list(m._load_state_dict_post_hooks.values()):
                    if hook(m, result) is not None:
                        raise RuntimeError("Hooks registered with "
                                           "``register_load_state_dict_post_hook`` are not "
                                           "expected to return new values, if "
                                           "incompatible_keys need to be modified, it should "
                                           "be done inplace.")
        if strict:
            if result.unexpected_keys:
                errors.insert(0, "Unexpected key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in result.unexpected_keys) + ". ")
            if result.missing_keys:
                errors.insert(0, "Missing key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in result.missing_keys) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        return result

    # -- repr ------------------------------------------------------------------------------

    def extra_repr(self) -> str:
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for name, m in self._modules.items():
            body = repr(m).replace("\n", "\n  ")
            lines.append(f"({name}): {body}")
        head = self._get_name() + "("
        if not lines:
            return head + ")"
        if len(lines) == 1 and not self._modules:
            return head + lines[0] + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))


def _add_hook(store: "collections.OrderedDict[int, Any]", hid: int, hook: Any,
              prepend: bool) -> None:
    store[hid] = hook
    if prepend:
        store.move_to_end(hid, last=False)


def _sub_prefix(prefix: str, mprefix: str) -> str:
    """The key prefix of the submodule at ``mprefix`` ("" or "a.b."), under ``prefix``."""
    return prefix + (mprefix + "." if mprefix else "")


def _is_lazy(t: Any) -> bool:
    return isinstance(t, UninitializedTensorMixin)


def _is_tensor(value: Any) -> bool:
    from transgrad._backend import is_tensor

    return is_tensor(value)


def _is_parameter(module: Module, value: Any) -> bool:
    if not isinstance(value, ParameterMixin):
        return False
    if module._engine is not None and not isinstance(value, module.Parameter):
        raise TypeError(f"cannot use a Parameter of {type(value).__module__} in "
                        f"{type(module).__module__}.{type(module).__name__}: a model's "
                        "parameters and layers must come from the same engine")
    return True


def _is_floating_dtype(dtype: Any) -> bool:
    return "float" in str(dtype)  # bfloat16 included (numpy gives it no "f" kind)


def _is_floating(t: Any) -> bool:
    return _is_floating_dtype(t.dtype)


def _zero_grad(p: Any, set_to_none: bool) -> None:
    if p.grad is None:
        return
    if set_to_none:
        p.grad = None
    else:
        backend_of(p).assign_(p.grad, p.grad.detach() * 0.0)


def _as_engine_tensor(E: Any, value: Any, dtype: Any) -> Any:
    if isinstance(value, E.Tensor):
        value = value.detach()
        return value if value.dtype == dtype else value.to(dtype)
    import numpy as np

    return E.module.tensor(np.asarray(value), dtype=dtype)
