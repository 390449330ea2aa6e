"""``Categorical(probs=None, logits=None)`` over ``{0, ..., K-1}`` (as ``torch.distributions``).

Stage: runtime, engine-neutral. Parameters are normalised on construction (probs sum to 1,
logits are log-probabilities); the event shape is (), the last dimension of the parameter holds
the K categories. Sampling inverts the CDF: one uniform per draw, compared with the cumulative
probabilities (no multinomial op needed).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from transgrad.distributions import constraints
from transgrad.distributions.distribution import Distribution
from transgrad.distributions.utils import engine_of, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """The categorical distribution over {0, ..., K-1}, K the last dimension of ``probs`` or
    ``logits`` (exactly one; probs need not be normalised)."""

    arg_constraints: ClassVar[dict[str, Any]] = {
        "probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.ndim < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            self._param = self.probs
        else:
            if logits.ndim < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            self._param = self.logits
        self._num_events = self._param.shape[-1]
        batch_shape = tuple(self._param.shape[:-1]) if self._param.ndim > 1 else ()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Categorical:
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = tuple(batch_shape)
        param_shape = batch_shape + (self._num_events,)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        super(Categorical, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _engine(self) -> Any:
        return engine_of(self._param)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Any:
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Any:
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Any:
        return tuple(self._param.shape)

    @property
    def mean(self) -> Any:
        return self._engine.full(self._extended_shape(), math.nan, dtype=self._param.dtype)

    @property
    def mode(self) -> Any:
        return self.probs.argmax(-1)

    @property
    def variance(self) -> Any:
        return self._engine.full(self._extended_shape(), math.nan, dtype=self._param.dtype)

    def sample(self, sample_shape: Any = ()) -> Any:
        eng = self._engine
        shape = self._extended_shape(sample_shape)
        with eng.no_grad():
            cdf = self.probs.cumsum(-1)
            u = eng.rand(shape + (1,), dtype=cdf.dtype) * cdf[..., -1:]
            index = (cdf < u).long().sum(-1)
            return index.clamp(max=self._num_events - 1)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = self._engine.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self) -> Any:
        min_real = float(np.finfo(self.logits.dtype).min)
        logits = self.logits.clamp(min=min_real)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Any:
        values = self._engine.arange(self._num_events, dtype=self._engine.int64)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
