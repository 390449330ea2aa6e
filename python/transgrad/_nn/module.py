"""nn.Module, engine-neutral: registration, traversal, state, modes, repr.

``Module`` is written once; ``transgrad.nn.Module`` and ``transgrad.reference.nn.Module`` are
one-line subclasses naming their engine in ``_engine`` (Note [Which engine makes a layer's
parameters]), so the same code makes compiled or reference parameters (the layers are in
``layers.py``).

Behaviour follows ``torch.nn`` for what it covers: registration by assignment,
``parameters``/``named_parameters``/``modules``, ``state_dict`` (tensors sharing memory with
the module) and ``load_state_dict`` (copies in place, keeps the Parameter objects),
``train``/``eval``, ``zero_grad``, torch-style ``repr``.
"""

from __future__ import annotations

import collections
import importlib
from collections.abc import Iterator
from typing import Any

from .engine import Engine, engine_named
from .parameter import ParameterMixin

# Note [Which engine makes a layer's parameters]
# torch code writes ``nn.Linear(3, 4)`` with no engine argument, and the same words must make
# compiled parameters after ``import transgrad as torch`` and reference ones after ``import
# transgrad.reference as torch``. One class cannot know the namespace it was reached through,
# and a process-wide default engine would let one namespace change the other's layers. So the
# engine is a class attribute, ``Module._engine`` (the engine module's name), None on the
# engine-neutral classes written here and set by explicit one-line subclasses in
# ``transgrad/nn/modules/`` (compiled) and ``transgrad/reference/nn/modules/`` (reference):
# ``class Linear(layers.Linear, Module): pass`` where ``Module`` is that namespace's. A user's
# ``class Net(torch.nn.Module)`` inherits the engine of the namespace it subclasses, and
# ``isinstance(layer, torch.nn.Module)`` holds within a namespace. The price is one line per
# layer and namespace, written by hand; tests/nn/test_nn_namespaces.py checks that both
# namespaces bind the same layers. Everything that receives a tensor (functional, utils,
# init, the optimizers) takes the engine from the tensor instead and is shared as is.

IncompatibleKeys = collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


class Module:
    """Base class of layers and models: assign Parameters and Modules as attributes."""

    _engine: str | None = None  # Note [Which engine makes a layer's parameters]
    training: bool

    @property
    def _E(self) -> Engine:
        """The adapter of the engine that makes this module's parameters."""
        if self._engine is None:
            raise TypeError(f"{type(self).__qualname__} has no engine: use the layers of "
                            "transgrad.nn or transgrad.reference.nn (Note [Which engine makes "
                            "a layer's parameters])")
        return engine_named(self._engine)

    @property
    def Parameter(self) -> type:
        """The Parameter class of this module's engine."""
        return importlib.import_module(f"{self._E.name}.nn.parameter").Parameter

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", collections.OrderedDict())
        object.__setattr__(self, "_buffers", collections.OrderedDict())
        object.__setattr__(self, "_modules", collections.OrderedDict())
        object.__setattr__(self, "training", True)

    # -- registration ----------------------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {name!r} before Module.__init__() is called "
                                 f"(call super().__init__() first in {type(self).__name__})")
        params, buffers, modules = self._parameters, self._buffers, self._modules
        if _is_parameter(self, value):
            self._discard(name)
            params[name] = value
        elif isinstance(value, Module):
            self._discard(name)
            modules[name] = value
        elif name in params:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} as parameter {name!r} "
                                "(nn.Parameter or None expected)")
            params[name] = None
        elif name in modules:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} as child module "
                                f"{name!r} (nn.Module or None expected)")
            modules[name] = None
        elif name in buffers:
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _discard(self, name: str) -> None:
        self.__dict__.pop(name, None)
        for d in (self._parameters, self._buffers, self._modules):
            d.pop(name, None)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __delattr__(self, name: str) -> None:
        for store in (self._parameters, self._buffers, self._modules):
            if name in store:
                del store[name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Any) -> None:
        if param is not None and not _is_parameter(self, param):
            raise TypeError(f"cannot register {type(param).__name__} as parameter {name!r} "
                            "(nn.Parameter or None expected)")
        self._discard(name)
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Any) -> None:
        self._discard(name)
        self._buffers[name] = tensor

    def add_module(self, name: str, module: Module | None) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module")
        self._discard(name)
        self._modules[name] = module

    # -- running ---------------------------------------------------------------------------

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def train(self, mode: bool = True) -> Module:
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self) -> Module:
        return self.train(False)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            _zero_grad(self._E, p, set_to_none)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def apply(self, fn: Any) -> Module:
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def to(self, dtype: Any) -> Module:
        """Convert floating parameters and buffers to ``dtype`` (new Parameter objects, as
        torch does when the dtype changes: build optimizers after calling this)."""
        E = self._E
        dtype = E.dtype(dtype)
        for m in self.modules():
            for name, p in list(m._parameters.items()):
                if p is not None and _is_floating(p) and p.dtype != dtype:
                    with E.no_grad():
                        m._parameters[name] = m.Parameter(p.detach().to(dtype),
                                                          requires_grad=p.requires_grad)
            for name, b in list(m._buffers.items()):
                if b is not None and _is_floating(b) and b.dtype != dtype:
                    m._buffers[name] = b.detach().to(dtype)
        return self

    def double(self) -> Module:
        return self.to(self._E.module.float64)

    def float(self) -> Module:
        return self.to(self._E.module.float32)

    # -- traversal -------------------------------------------------------------------------

    def named_parameters(self, prefix: str = "", recurse: bool = True
                         ) -> Iterator[tuple[str, Any]]:
        seen = set()
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mprefix, m in mods:
            for name, p in m._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{mprefix}.{name}" if mprefix else name), p

    def parameters(self, recurse: bool = True) -> Iterator[Any]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True
                      ) -> Iterator[tuple[str, Any]]:
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mprefix, m in mods:
            for name, b in m._buffers.items():
                if b is not None:
                    yield (f"{mprefix}.{name}" if mprefix else name), b

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

    def named_modules(self, prefix: str = "", memo: set | None = None
                      ) -> Iterator[tuple[str, Module]]:
        memo = set() if memo is None else memo
        if id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(f"{prefix}.{name}" if prefix else name, memo)

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    # -- state -----------------------------------------------------------------------------

    def state_dict(self) -> collections.OrderedDict[str, Any]:
        """Parameters and buffers by dotted name, detached (sharing memory with the module)."""
        out: collections.OrderedDict[str, Any] = collections.OrderedDict()
        for mprefix, m in self.named_modules():
            for store in (m._parameters, m._buffers):
                for name, t in store.items():
                    if t is not None:
                        out[f"{mprefix}.{name}" if mprefix else name] = t.detach()
        return out

    def load_state_dict(self, state_dict: dict[str, Any], strict: bool = True) -> Any:
        """Copy values in place into this module's parameters and buffers (the Parameter
        objects stay the same, so optimizers keep working). Returns the missing and
        unexpected keys; with ``strict`` either raises a KeyError listing them."""
        E = self._E
        own: dict[str, tuple[Module, str, bool]] = {}
        for mprefix, m in self.named_modules():
            for is_param, store in ((True, m._parameters), (False, m._buffers)):
                for name, t in store.items():
                    if t is not None:
                        own[f"{mprefix}.{name}" if mprefix else name] = (m, name, is_param)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise KeyError(f"load_state_dict for {type(self).__name__}: missing keys "
                           f"{missing}, unexpected keys {unexpected}")
        errors: list[str] = []
        for key, (m, name, is_param) in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            cur = (m._parameters if is_param else m._buffers)[name]
            shape = tuple(value.shape)
            if shape != tuple(cur.shape):
                errors.append(f"{key}: shape {shape} in the state dict, {tuple(cur.shape)} in "
                              "the module")
        if errors:
            raise ValueError("load_state_dict: size mismatch: " + "; ".join(errors))
        for key, (m, name, is_param) in own.items():
            if key in state_dict:
                cur = (m._parameters if is_param else m._buffers)[name]
                E.assign_(cur, _as_engine_tensor(E, state_dict[key], cur.dtype))
        return IncompatibleKeys(missing, unexpected)

    # -- repr ------------------------------------------------------------------------------

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for name, m in self._modules.items():
            body = repr(m).replace("\n", "\n  ")
            lines.append(f"({name}): {body}")
        head = type(self).__name__ + "("
        if not lines:
            return head + ")"
        if len(lines) == 1 and not self._modules:
            return head + lines[0] + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))


def _is_parameter(module: Module, value: Any) -> bool:
    if not isinstance(value, ParameterMixin):
        return False
    if module._engine is not None and not isinstance(value, module.Parameter):
        raise TypeError(f"cannot use a Parameter of {type(value).__module__} in "
                        f"{type(module).__module__}.{type(module).__name__}: a model's "
                        "parameters and layers must come from the same engine")
    return True


def _is_floating(t: Any) -> bool:
    return "float" in str(t.dtype)


def _zero_grad(E: Any, p: Any, set_to_none: bool) -> None:
    if p.grad is None:
        return
    if set_to_none:
        p.grad = None
    else:
        E.assign_(p.grad, p.grad.detach() * 0.0)


def _as_engine_tensor(E: Any, value: Any, dtype: Any) -> Any:
    if isinstance(value, E.Tensor):
        value = value.detach()
        return value if value.dtype == dtype else value.to(dtype)
    import numpy as np

    return E.module.tensor(np.asarray(value), dtype=dtype)
