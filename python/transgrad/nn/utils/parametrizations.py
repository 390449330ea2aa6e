"""``transgrad.nn.utils.parametrizations``: weight norm, spectral norm and orthogonal
matrices as parametrizations (torch.nn.utils.parametrizations).

The functions are engine-neutral (``transgrad._nn.parametrizations``); the parametrization
modules are bound here to the compiled engine; the twin file is
``transgrad.reference.nn.utils.parametrizations``.
"""

from transgrad._nn import parametrizations as _p
from transgrad._nn.parametrizations import orthogonal, spectral_norm, weight_norm

from ..modules.module import Module


class _WeightNorm(_p._WeightNorm, Module):
    __doc__ = _p._WeightNorm.__doc__


class _SpectralNorm(_p._SpectralNorm, Module):
    __doc__ = _p._SpectralNorm.__doc__


class _Orthogonal(_p._Orthogonal, Module):
    __doc__ = _p._Orthogonal.__doc__


__all__ = ["orthogonal", "spectral_norm", "weight_norm"]
