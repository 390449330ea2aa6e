"""Gradient clipping at torch's path (``torch.nn.utils.clip_grad``); engine-neutral functions."""

from transgrad._nn.utils import clip_grad_norm_, clip_grad_value_

__all__ = ["clip_grad_norm_", "clip_grad_value_"]
