"""transgrad.reference.utils: ``transgrad.utils`` for the reference engine (torch's paths)."""

from transgrad.reference.utils import checkpoint, data

__all__ = ["checkpoint", "data"]
