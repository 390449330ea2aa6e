"""``Exponential(rate)`` (as ``torch.distributions``).

Stage: runtime, engine-neutral. rsample inverts the CDF, ``-log1p(-u) / rate`` with ``u`` from
the engine's ``rand`` (in [0, 1), so the logarithm is finite): gradients reach ``rate``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from transgrad.distributions import constraints
from transgrad.distributions.distribution import Distribution
from transgrad.distributions.utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(Distribution):
    """The exponential distribution with rate ``rate`` (mean 1 / rate)."""

    arg_constraints: ClassVar[dict[str, Any]] = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate, default_engine=self._default_engine)
        super().__init__(tuple(self.rate.shape), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Exponential:
        return self._expanded(Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self) -> Any:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Any:
        return self.rate * 0

    @property
    def stddev(self) -> Any:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Any:
        return self.rate ** -2

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        u = self._engine.rand(shape, dtype=self.rate.dtype)
        return -(-u).log1p() / self.rate

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value: Any) -> Any:
        return -(-value).log1p() / self.rate

    def entropy(self) -> Any:
        return 1.0 - self.rate.log()
