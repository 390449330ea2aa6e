"""``Dirichlet(concentration)`` on the simplex (as ``torch.distributions``).

Stage: runtime, engine-neutral. Samples are normalised standard-gamma draws (Note [Gamma
sampling] in gamma.py), so rsample is differentiable with respect to the concentration.
``log_prob`` and ``entropy`` need the engine's ``lgamma`` / ``digamma``.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from transgrad.distributions import constraints
from transgrad.distributions.distribution import Distribution
from transgrad.distributions.gamma import standard_gamma
from transgrad.distributions.utils import engine_of, special, xlogy_zero

__all__ = ["Dirichlet"]


class Dirichlet(Distribution):
    """The Dirichlet distribution on the simplex of the last dimension of ``concentration``."""

    arg_constraints: ClassVar[dict[str, Any]] = {
        "concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Any, validate_args: bool | None = None) -> None:
        if concentration.ndim < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(tuple(concentration.shape[:-1]), tuple(concentration.shape[-1:]),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Dirichlet:
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = tuple(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _engine(self) -> Any:
        return engine_of(self.concentration)

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        gammas = standard_gamma(self.concentration.expand(shape))
        sample = gammas / gammas.sum(-1, keepdim=True)
        info = np.finfo(sample.dtype)
        return sample.clamp(min=float(info.tiny), max=1 - float(info.eps))

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return (xlogy_zero(c - 1.0, value).sum(-1) + special("lgamma", c.sum(-1))
                - special("lgamma", c).sum(-1))

    @property
    def mean(self) -> Any:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> Any:
        c = self.concentration
        concentrationm1 = (c - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, keepdim=True)
        mask = (c < 1).all(-1)
        one_hot = (c.argmax(-1).unsqueeze(-1) == self._engine.arange(c.shape[-1])).to(c.dtype)
        return self._engine.where(mask.unsqueeze(-1), one_hot, mode)

    @property
    def variance(self) -> Any:
        c0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (c0 - self.concentration) / (c0 ** 2 * (c0 + 1))

    def entropy(self) -> Any:
        c = self.concentration
        k = c.shape[-1]
        a0 = c.sum(-1)
        return (special("lgamma", c).sum(-1) - special("lgamma", a0)
                - (k - a0) * special("digamma", a0)
                - ((c - 1.0) * special("digamma", c)).sum(-1))
