"""``transgrad.accelerator``, as ``torch.accelerator`` on a machine without one."""

from __future__ import annotations

from typing import Optional

from transgrad._device import device

__all__ = ["current_accelerator", "device_count", "is_available"]


def is_available() -> bool:
    """False: transgrad computes on the CPU only."""
    return False


def current_accelerator(check_available: bool = False) -> Optional[device]:
    """None: there is no accelerator."""
    return None


def device_count() -> int:
    return 0
