"""``Bernoulli(probs=None, logits=None)`` (as ``torch.distributions``).

Stage: runtime, engine-neutral. Exactly one of ``probs`` / ``logits`` is given; the other is a
``lazy_property`` derived from it. ``log_prob`` is the negated binary cross-entropy with logits,
written stably (no log of a rounded probability).
"""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

from transgrad.distributions import constraints
from transgrad.distributions.distribution import Distribution
from transgrad.distributions.utils import (
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
    softplus,
)

__all__ = ["Bernoulli"]


class Bernoulli(Distribution):
    """The Bernoulli distribution over {0, 1}, from ``probs`` or ``logits`` (exactly one)."""

    arg_constraints: ClassVar[dict[str, Any]] = {
        "probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs, default_engine=self._default_engine)
            self._param = self.probs
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits, default_engine=self._default_engine)
            self._param = self.logits
        batch_shape = () if is_scalar else tuple(self._param.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Bernoulli:
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = tuple(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(Bernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _engine(self) -> Any:
        from transgrad.distributions.utils import engine_of

        return engine_of(self._param)

    @property
    def mean(self) -> Any:
        return self.probs

    @property
    def mode(self) -> Any:
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return mode.masked_fill(self.probs == 0.5, float("nan"))

    @property
    def variance(self) -> Any:
        return self.probs * (1 - self.probs)

    @lazy_property
    def logits(self) -> Any:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Any:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Any:
        return tuple(self._param.shape)

    def sample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        eng = self._engine
        with eng.no_grad():
            probs = self.probs.expand(shape)
            return (eng.rand(shape, dtype=probs.dtype) < probs).to(probs.dtype)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return logits * value - softplus(logits)

    def entropy(self) -> Any:
        return softplus(self.logits) - self.logits * self.probs

    def enumerate_support(self, expand: bool = True) -> Any:
        eng = self._engine
        values = eng.arange(2, dtype=self._param.dtype)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
