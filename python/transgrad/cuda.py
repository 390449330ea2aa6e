"""``transgrad.cuda``, as ``torch.cuda`` on a machine without CUDA: transgrad computes on the CPU.

What programs call before they know whether CUDA is there answers as torch's does then
(``is_available()`` is False, seeding is silently ignored, ``empty_cache`` does nothing); what
needs a CUDA device raises, saying so.
"""

from __future__ import annotations

from typing import Any

from transgrad import _cuda_amp as amp  # noqa: F401  (torch.cuda.amp, deprecated in torch)

__all__ = ["current_device", "device_count", "empty_cache", "get_device_name", "is_available",
           "is_initialized", "manual_seed", "manual_seed_all", "seed", "seed_all",
           "synchronize"]


def is_available() -> bool:
    """False: transgrad has no CUDA engine."""
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Ignored, as torch ignores it without CUDA."""


def manual_seed_all(seed: int) -> None:
    """Ignored, as torch ignores it without CUDA."""


def seed() -> None:
    """Ignored, as torch ignores it without CUDA."""


def seed_all() -> None:
    """Ignored, as torch ignores it without CUDA."""


def empty_cache() -> None:
    """Nothing to free: no CUDA memory is ever allocated."""


def _unavailable(what: str) -> RuntimeError:
    return RuntimeError(f"transgrad.cuda.{what}(): transgrad computes on the CPU only and has no "
                        "CUDA device (transgrad.cuda.is_available() is False)")


def current_device() -> int:
    raise _unavailable("current_device")


def get_device_name(device: Any = None) -> str:
    raise _unavailable("get_device_name")


def synchronize(device: Any = None) -> None:
    raise _unavailable("synchronize")
