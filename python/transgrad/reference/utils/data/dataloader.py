"""The DataLoader of the reference engine: ``transgrad.utils.data.dataloader`` with the
reference engine's default collate (torch's path ``torch.utils.data.dataloader``)."""

from __future__ import annotations

from typing import Any

from transgrad.utils import _engine
from transgrad.utils.data import dataloader as _dataloader
from transgrad.utils.data._collate import collate_on, convert_on
from transgrad.utils.data._worker import get_worker_info

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]


def default_collate(batch: Any) -> Any:
    """``transgrad.utils.data.default_collate``, with reference tensors for numbers/arrays."""
    return collate_on(batch, _engine.REFERENCE)


def default_convert(data: Any) -> Any:
    """``transgrad.utils.data.default_convert``, with reference tensors for arrays."""
    return convert_on(data, _engine.REFERENCE)


class DataLoader(_dataloader.DataLoader):
    __doc__ = _dataloader.DataLoader.__doc__
    _engine_name = _engine.REFERENCE
    _default_collate = staticmethod(default_collate)
    _default_convert = staticmethod(default_convert)
