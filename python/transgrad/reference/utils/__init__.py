"""transgrad.reference.utils: ``transgrad.utils`` for the reference engine (torch's paths)."""

from transgrad.reference.utils import data

__all__ = ["data"]
