"""``Laplace(loc, scale)`` (as ``torch.distributions``).

Stage: runtime, engine-neutral. rsample inverts the CDF of ``u`` uniform on (eps - 1, 1), so
``log1p(-|u|)`` is finite; gradients reach ``loc`` and ``scale``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from transgrad.distributions import constraints
from transgrad.distributions.distribution import Distribution
from transgrad.distributions.utils import broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace distribution with location ``loc`` and scale ``scale``."""

    arg_constraints: ClassVar[dict[str, Any]] = {
        "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale, default_engine=self._default_engine)
        super().__init__(tuple(self.loc.shape), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Laplace:
        return self._expanded(Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> Any:
        return self.loc

    @property
    def mode(self) -> Any:
        return self.loc

    @property
    def variance(self) -> Any:
        return 2 * self.scale ** 2

    @property
    def stddev(self) -> Any:
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        eps = float(np.finfo(self.loc.dtype).eps)
        u = self._engine.rand(shape, dtype=self.loc.dtype) * (2 - eps) + (eps - 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * (
            -(value - self.loc).abs() / self.scale).expm1()

    def icdf(self, value: Any) -> Any:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self) -> Any:
        return 1 + (2 * self.scale).log()
