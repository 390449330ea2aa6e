"""``transgrad.reference.nn.utils``: gradient clipping and parameters as one vector
(engine-neutral, the same
functions as ``transgrad.nn.utils``)."""

from transgrad._nn.utils import (
    clip_grad_norm_,
    clip_grad_value_,
    parameters_to_vector,
    vector_to_parameters,
)

from . import rnn

__all__ = [
    "rnn", "clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters",
]
