"""``Beta(concentration1, concentration0)`` on [0, 1] (as ``torch.distributions``): a
two-category Dirichlet over (x, 1 - x).

Stage: runtime, engine-neutral; log_prob / entropy need the engine's ``lgamma`` / ``digamma``.
"""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

from transgrad.distributions import constraints
from transgrad.distributions.dirichlet import Dirichlet
from transgrad.distributions.distribution import Distribution
from transgrad.distributions.utils import broadcast_all, engine_of

__all__ = ["Beta"]


class Beta(Distribution):
    """The beta distribution with concentrations ``concentration1`` (of x) and
    ``concentration0`` (of 1 - x)."""

    arg_constraints: ClassVar[dict[str, Any]] = {
        "concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any,
                 validate_args: bool | None = None) -> None:
        c1, c0 = broadcast_all(concentration1, concentration0,
                               default_engine=self._default_engine)
        scalar = isinstance(concentration1, numbers.Real) and isinstance(concentration0,
                                                                         numbers.Real)
        self._dirichlet = Dirichlet(engine_of(c1).stack([c1, c0], -1),
                                    validate_args=validate_args)
        batch_shape = () if scalar else tuple(self._dirichlet.batch_shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Beta:
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = tuple(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        super(Beta, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _engine(self) -> Any:
        return self._dirichlet._engine

    @property
    def concentration1(self) -> Any:
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Any:
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Any:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Any:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Any:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total ** 2 * (total + 1))

    def rsample(self, sample_shape: Any = ()) -> Any:
        return self._dirichlet.rsample(sample_shape)[..., 0]

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = self._engine.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self) -> Any:
        return self._dirichlet.entropy()
