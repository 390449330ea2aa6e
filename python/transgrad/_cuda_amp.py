"""``transgrad.cuda.amp``: torch's deprecated spellings ``torch.cuda.amp.autocast(...)`` and
``torch.cuda.amp.GradScaler(...)``, i.e. ``transgrad.amp``'s with the device "cuda" (disabled
with torch's warnings: there is no CUDA)."""

from __future__ import annotations

import warnings
from typing import Any

from transgrad import amp as _amp

__all__ = ["autocast", "GradScaler"]


class autocast(_amp.autocast):
    def __init__(self, enabled: bool = True, dtype: Any = None,
                 cache_enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)
