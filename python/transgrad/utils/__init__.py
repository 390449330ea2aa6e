"""transgrad.utils: helpers around the engines, at torch's paths (``torch.utils.data``).

Engine-neutral: nothing here imports an engine at import time; tensors are made through the
engine found by ``transgrad.utils._engine`` (the one place that knows how engines are found).
"""

from transgrad.utils import checkpoint, data

__all__ = ["checkpoint", "data"]
