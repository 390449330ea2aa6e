"""``transgrad.backends``: the switches torch programs set (``backends.cudnn.deterministic``,
``backends.mps.is_available()``, ``backends.cuda.matmul.allow_tf32``), answering as torch does
on a CPU-only machine."""

from transgrad.backends import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
