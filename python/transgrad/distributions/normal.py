"""``Normal(loc, scale)``: the univariate normal distribution (as ``torch.distributions``).

Stage: runtime, engine-neutral (the engine of ``loc``/``scale``). rsample is reparameterised:
``loc + eps * scale`` with ``eps`` from the engine's ``randn``, so gradients reach both.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from transgrad.distributions import constraints
from transgrad.distributions.distribution import Distribution
from transgrad.distributions.utils import as_engine_tensor, broadcast_all, special

__all__ = ["Normal"]


class Normal(Distribution):
    """The normal distribution N(loc, scale^2), batched over the broadcast parameters."""

    arg_constraints: ClassVar[dict[str, Any]] = {
        "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale, default_engine=self._default_engine)
        super().__init__(tuple(self.loc.shape), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Normal:
        return self._expanded(Normal, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> Any:
        return self.loc

    @property
    def mode(self) -> Any:
        return self.loc

    @property
    def stddev(self) -> Any:
        return self.scale

    @property
    def variance(self) -> Any:
        return self.stddev ** 2

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        eps = self._engine.randn(shape, dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        return (-((value - self.loc) ** 2) / (2 * var) - self.scale.log()
                - math.log(math.sqrt(2 * math.pi)))

    def cdf(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)).erf())

    def icdf(self, value: Any) -> Any:
        value = as_engine_tensor(value, self.loc)
        return self.loc + self.scale * special("erfinv", 2 * value - 1) * math.sqrt(2)

    def entropy(self) -> Any:
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()
