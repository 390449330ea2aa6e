"""``transgrad.backends``: the switches torch programs set (``backends.cudnn.deterministic``,
``backends.mps.is_available()``), answering as torch does on a CPU-only machine."""

from transgrad.backends import cudnn, mps

__all__ = ["cudnn", "mps"]
