"""``transgrad.reference.autograd.function``: the custom-Function names under torch's module
path (``Function``, ``FunctionCtx``, ``InplaceFunction``, ``once_differentiable``)."""

from transgrad.reference.autograd import Function, FunctionCtx, InplaceFunction, once_differentiable

__all__ = ["Function", "FunctionCtx", "InplaceFunction", "once_differentiable"]
