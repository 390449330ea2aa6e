"""``transgrad.nn.modules.attention``: multi-head attention, bound to the compiled engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.attention`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.reference.nn.modules.attention``.
"""

from transgrad._nn.modules import attention as _attention

from .module import Module


class MultiheadAttention(_attention.MultiheadAttention, Module):
    __doc__ = _attention.MultiheadAttention.__doc__


# torch keeps this one out of torch.nn too: the class of MultiheadAttention.out_proj
class NonDynamicallyQuantizableLinear(_attention.NonDynamicallyQuantizableLinear, Module):
    __doc__ = _attention.NonDynamicallyQuantizableLinear.__doc__


__all__ = ["MultiheadAttention"]
