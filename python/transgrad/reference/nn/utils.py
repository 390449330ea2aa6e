"""``transgrad.reference.nn.utils``: gradient clipping (engine-neutral, shared with ``transgrad.nn.utils``)."""

from transgrad._nn.utils import clip_grad_norm_, clip_grad_value_

__all__ = ["clip_grad_norm_", "clip_grad_value_"]
