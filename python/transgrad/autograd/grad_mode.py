"""``transgrad.autograd.grad_mode``: the grad-mode managers at torch's path
(``torch.autograd.grad_mode``); the same objects as ``transgrad.no_grad`` etc."""

from transgrad._api.grad_mode import is_inference_mode_enabled
from transgrad._compiled import inference_mode
from transgrad.autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled

__all__ = ["enable_grad", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled",
           "no_grad", "set_grad_enabled"]
