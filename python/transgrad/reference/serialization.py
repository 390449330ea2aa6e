"""``transgrad.serialization`` for the reference engine: ``load`` makes reference tensors."""

from __future__ import annotations

from typing import Any, Optional

from transgrad.serialization import load_into, save
from transgrad.utils import _engine

__all__ = ["load", "save"]


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *,
         weights_only: Optional[bool] = None, mmap: Optional[bool] = None,
         **pickle_load_args: Any) -> Any:
    """``transgrad.serialization.load`` with tensors of ``transgrad.reference``."""
    return load_into(f, _engine.REFERENCE, map_location)
