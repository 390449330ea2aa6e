"""``transgrad.nn.utils``: gradient clipping and parameters as one vector (engine-neutral, the same
functions as ``transgrad.reference.nn.utils``)."""

from transgrad._nn.utils import (
    clip_grad_norm_,
    clip_grad_value_,
    parameters_to_vector,
    vector_to_parameters,
)

from . import parametrizations, parametrize, rnn
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "rnn", "clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters",
    "parametrize", "parametrizations", "weight_norm", "remove_weight_norm", "spectral_norm",
    "remove_spectral_norm",
]
