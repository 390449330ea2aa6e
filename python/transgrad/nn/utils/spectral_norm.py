"""Spectral normalisation by a forward pre-hook, at torch's path
(``torch.nn.utils.spectral_norm``); engine-neutral functions (``transgrad._nn.spectral_norm``)."""

from transgrad._nn.spectral_norm import SpectralNorm, remove_spectral_norm, spectral_norm

__all__ = ["SpectralNorm", "remove_spectral_norm", "spectral_norm"]
