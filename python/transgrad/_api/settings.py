"""Global switches torch programs set at their top: ``use_deterministic_algorithms``,
``set_float32_matmul_precision``, and ``compile``; ``autocast`` (``transgrad.amp``); torch's
constants ``inf``, ``nan``, ``pi``, ``e``, ``newaxis``, the memory formats
(``contiguous_format``, ``preserve_format``, ``channels_last``, ``channels_last_3d``) and the
layout ``strided``, which factories accept (every transgrad tensor is strided; a new tensor is
contiguous).

Input: the program's settings. Output: the settings recorded and reported back as torch does.
transgrad's CPU kernels are deterministic whatever the switch says (a kernel splits its work
in a fixed order for a given thread count, csrc/tensor/parallel.h), and its matmul is plain
float32 BLAS at every precision setting; ``compile`` returns the callable itself, because
transgrad's formulas are compiled ahead of time (the docs say so). Shared by both engines.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

from transgrad.amp import autocast

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_float32_matmul_precision",
           "get_float32_matmul_precision", "compile", "autocast", "inf", "nan", "pi", "e",
           "newaxis", "memory_format", "layout", "contiguous_format", "preserve_format",
           "channels_last", "channels_last_3d", "strided"]

inf, nan, pi, e = math.inf, math.nan, math.pi, math.e
newaxis: None = None



class memory_format:
    """torch.memory_format: a name, printed as torch's (``torch.preserve_format``)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self) -> str:
        return self._name


class layout(memory_format):
    """torch.layout: ``strided``, the one layout of transgrad's tensors."""


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
strided = layout("strided")

_state = {"deterministic": False, "warn_only": False, "matmul_precision": "highest"}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Record that the program asks for deterministic algorithms (every transgrad kernel is)."""
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not "
                        f"{type(mode).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return bool(_state["deterministic"])


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return bool(_state["warn_only"])


def set_float32_matmul_precision(precision: str) -> None:
    """Record the float32 matmul precision ("highest", "high" or "medium"); transgrad computes
    float32 matmuls in float32 at all three."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision: {precision}. Must be one of 'highest', 'high', "
                           f"or 'medium'")
    _state["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return str(_state["matmul_precision"])


def compile(model: Optional[Callable[..., Any]] = None, *, fullgraph: bool = False,  # noqa: A001
            dynamic: Optional[bool] = None, backend: Any = "inductor",
            mode: Optional[str] = None, options: Optional[dict] = None,
            disable: bool = False) -> Any:
    """``model`` itself (or, without it, a decorator returning the function itself): formulas
    are compiled to C++ ahead of time, so there is nothing left to compile at run time."""
    if model is None:
        return lambda fn: fn
    if not callable(model):
        raise RuntimeError("compile(): model must be a callable (a Module or a function)")
    return model
