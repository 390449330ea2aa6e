"""Where engine-neutral utilities (data loading, serialization) find an engine.

Input: a tensor of either engine, or an engine's module name. Output: the engine's public
module (``transgrad`` or ``transgrad.reference``), which has ``tensor``, ``as_tensor``,
``from_numpy``, ``stack``, ``manual_seed``, ``randint``, ...

Invariant: this module is the only place in ``transgrad.utils`` and ``transgrad.serialization``
that knows how an engine is found, so pointing it at a new backend API is a local change.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, Optional

COMPILED = "transgrad"
REFERENCE = "transgrad.reference"


def engine(name: str) -> ModuleType:
    """The public module of the engine called ``name`` ("transgrad" or "transgrad.reference")."""
    if name not in (COMPILED, REFERENCE):
        raise ValueError(f"unknown engine {name!r}: expected {COMPILED!r} or {REFERENCE!r}")
    return importlib.import_module(name)


def engine_of_class(cls: type) -> Optional[ModuleType]:
    """The engine module whose Tensor class is ``cls`` or a base of it (``nn.Parameter``), or
    None when ``cls`` is not a tensor class of any loaded engine."""
    from transgrad import _backend

    backend = _backend.backend_of_class(cls)
    return None if backend is None else backend.module


def engine_of(tensor: Any) -> Optional[ModuleType]:
    """The engine module of ``tensor``, or None when it is not a tensor of a loaded engine."""
    return engine_of_class(type(tensor))


def is_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a tensor of a loaded engine (an engine not imported has no tensors)."""
    return engine_of(obj) is not None


def parameter_class(mod: ModuleType) -> type:
    """The ``nn.Parameter`` class of the engine ``mod``."""
    return importlib.import_module(mod.__name__ + ".nn").Parameter

