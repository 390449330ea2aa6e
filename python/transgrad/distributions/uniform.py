"""``Uniform(low, high)`` on [low, high) (as ``torch.distributions``).

Stage: runtime, engine-neutral. The constraints of each bound depend on the other (low < high),
and the support is a ``dependent_property``: validation checks values against the actual
interval.
"""

from __future__ import annotations

import math
from typing import Any

from transgrad.distributions import constraints
from transgrad.distributions.distribution import Distribution
from transgrad.distributions.utils import broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """The uniform distribution on the half-open interval [low, high)."""

    has_rsample = True

    @property
    def arg_constraints(self) -> Any:  # type: ignore[override]
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high, default_engine=self._default_engine)
        super().__init__(tuple(self.low.shape), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Uniform:
        return self._expanded(Uniform, batch_shape, _instance, ("low", "high"))

    @property
    def mean(self) -> Any:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Any:
        return math.nan * self.high

    @property
    def stddev(self) -> Any:
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self) -> Any:
        return (self.high - self.low) ** 2 / 12

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        rand = self._engine.rand(shape, dtype=self.low.dtype)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        lb = (self.low <= value).to(self.low.dtype)
        ub = (self.high > value).to(self.low.dtype)
        return (lb * ub).log() - (self.high - self.low).log()

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value: Any) -> Any:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Any:
        return (self.high - self.low).log()
