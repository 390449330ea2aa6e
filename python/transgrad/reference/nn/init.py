"""``transgrad.reference.nn.init``: torch's initialisation schemes, filling a tensor in place
(engine-neutral,
the same functions as ``transgrad.nn.init``; see ``transgrad._nn.init``)."""

from transgrad._nn.init import (
    calculate_gain,
    constant_,
    kaiming_normal_,
    kaiming_uniform_,
    normal_,
    ones_,
    orthogonal_,
    trunc_normal_,
    uniform_,
    xavier_normal_,
    xavier_uniform_,
    zeros_,
)

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_"]
