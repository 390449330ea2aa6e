"""nn and optim, written once and built for each engine.

``build(engine_module, prefix)`` returns the public namespaces for one engine: ``nn``
(Module, Parameter, layers, losses), ``functional``, ``utils`` (gradient clipping) and ``optim``. ``transgrad.nn`` /
``transgrad.optim`` build them over the compiled engine, ``transgrad.reference.nn`` /
``transgrad.reference.optim`` over the reference engine: the same code, so both engines train
the same way (tests/nn compares their losses step by step).

How it is specialised: every template class (``layers.MODULES``, ``optim.OPTIMIZERS``) gets
one subclass per engine that sets ``_E`` (the ``Engine`` adapter), ``_F`` (functional bound
to the engine) and ``Parameter``; the subclass tree mirrors the template tree, so
``isinstance(tg.nn.Linear(2, 3), tg.nn.Module)`` holds and user subclasses of
``tg.nn.Module`` inherit the engine.
"""

from __future__ import annotations

import functools
import types
from typing import Any

from . import functional as _functional
from . import layers as _layers
from . import module as _module
from . import optim as _optim
from . import utils as _utils
from .engine import Engine

__all__ = ["Engine", "build"]

_BUILT: dict[int, types.SimpleNamespace] = {}


def build(engine_module: Any, prefix: str) -> types.SimpleNamespace:
    """The nn/functional/optim namespaces of ``engine_module`` (built once per engine)."""
    key = id(engine_module)
    if key not in _BUILT:
        _BUILT[key] = _build(Engine(engine_module), prefix)
    return _BUILT[key]


def _build(E: Engine, prefix: str) -> types.SimpleNamespace:
    F: Any = types.ModuleType(f"{prefix}.nn.functional", _functional.__doc__)
    for name in _functional.__all__:
        F.__dict__[name] = _bind(getattr(_functional, name), E, F.__name__)
    F.__all__ = list(_functional.__all__)

    Parameter = make_parameter_class(E, f"{prefix}.nn")
    _module.PARAMETER_CLASSES.append(Parameter)
    extra = {"_E": E, "_F": F, "Parameter": Parameter}
    nn: Any = types.ModuleType(f"{prefix}.nn", "Neural-network layers (Module, Linear, ...) for "
                          f"the engine {E.name}.")
    nn.__dict__.update(_specialise(_layers.MODULES, extra, nn.__name__))
    utils: Any = types.ModuleType(f"{prefix}.nn.utils", _utils.__doc__)
    for name in _utils.__all__:
        utils.__dict__[name] = _bind(getattr(_utils, name), E, utils.__name__)
    utils.__all__ = list(_utils.__all__)
    nn.Parameter = Parameter
    nn.functional = F
    nn.utils = utils
    nn.__all__ = ["Parameter", "functional", "utils"] + [
        c.__name__ for c in _layers.MODULES if not c.__name__.startswith("_")]

    optim: Any = types.ModuleType(f"{prefix}.optim", f"Optimizers for the engine {E.name}.")
    templates = _optim.OPTIMIZERS + _more_optimizers()
    optim.__dict__.update(_specialise(templates, {"_E": E}, optim.__name__))
    optim.__all__ = [c.__name__ for c in templates]
    return types.SimpleNamespace(nn=nn, functional=F, utils=utils, optim=optim, engine=E)


def _more_optimizers() -> tuple[type, ...]:
    """The optimizers written once under transgrad/optim/ (until the base class finds its
    engine from its parameters, they are specialised per engine like the others)."""
    from transgrad.optim import adadelta, adagrad, adamax, lbfgs, nadam, radam, rmsprop

    return (rmsprop.RMSprop, adagrad.Adagrad, adadelta.Adadelta, adamax.Adamax, nadam.NAdam,
            radam.RAdam, lbfgs.LBFGS)


def _bind(fn: Any, E: Engine, module_name: str) -> Any:
    bound = functools.partial(fn, E)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return bound(*args, **kwargs)

    wrapper.__module__ = module_name
    wrapper.__wrapped__ = fn
    return wrapper


def _specialise(templates: Any, attrs: dict[str, Any], module_name: str) -> dict[str, type]:
    """One subclass per template, bases mapped to their specialisations (see module doc)."""
    made: dict[type, type] = {}
    for cls in templates:
        bases = (cls,) + tuple(made[b] for b in cls.__bases__ if b in made)
        body = {"__module__": module_name, "__qualname__": cls.__name__, "__doc__": cls.__doc__}
        if not any(b in made for b in cls.__bases__):
            body.update(attrs)  # the roots carry the engine; the rest inherit it
        made[cls] = type(cls.__name__, bases, body)
    return {cls.__name__: sub for cls, sub in made.items()}


def make_parameter_class(E: Engine, module_name: str) -> type:
    """``Parameter``: a subclass of the engine's Tensor, always a leaf that requires grad,
    sharing its data with the tensor it is made from (Note [Parameter construction])."""
    Base = E.Tensor
    body: dict[str, Any] = {
        "__module__": module_name, "__qualname__": "Parameter",
        "__doc__": "A tensor that a Module registers as a parameter: a leaf with "
                   "requires_grad=True, sharing data with the tensor it was made from.",
        "__repr__": lambda self: "Parameter containing:\n" + Base.__repr__(self),
    }

    def __deepcopy__(self: Any, memo: dict) -> Any:  # copy.deepcopy(model): fresh data, as torch
        if id(self) not in memo:
            with E.no_grad():
                memo[id(self)] = type(self)(self.detach().clone(), self.requires_grad)
        return memo[id(self)]

    body["__deepcopy__"] = __deepcopy__
    if _is_extension_type(Base):
        def __init__(self: Any, data: Any = None, requires_grad: bool = True) -> None:
            Base.__init__(self, E.module.zeros(0) if data is None else data, requires_grad)

        body["__init__"] = __init__
    else:
        def __new__(cls: type, data: Any = None, requires_grad: bool = True) -> Any:
            src = (E.module.zeros(0) if data is None else data).detach()
            return _copy_slots(Base, cls, src, requires_grad)

        body["__new__"] = __new__
        body["__init__"] = lambda self, data=None, requires_grad=True: None
    return type("Parameter", (Base,), body)


# Note [Parameter construction]
# A Parameter must be an instance of the engine's Tensor class (so every op accepts it) that
# shares storage and version counter with its source, without history. The compiled Tensor
# (pybind11) has a constructor for exactly that, ``Tensor(tensor, requires_grad)``, which a
# Python subclass calls from ``__init__``. The reference Tensor is a plain class with
# ``__slots__``: the subclass instance takes over the detached source's slots.


def _is_extension_type(cls: type) -> bool:
    return type(cls).__name__.startswith("pybind11")


def _copy_slots(Base: type, cls: type, src: Any, requires_grad: bool) -> Any:
    obj: Any = object.__new__(cls)  # a plain Python class: Note [Parameter construction]
    for klass in type(src).__mro__:
        for slot in getattr(klass, "__slots__", ()):
            if slot not in ("__weakref__", "__dict__") and hasattr(src, slot):
                object.__setattr__(obj, slot, getattr(src, slot))
    if getattr(src, "__dict__", None):
        obj.__dict__.update(src.__dict__)
    obj.requires_grad_(requires_grad)
    return obj
