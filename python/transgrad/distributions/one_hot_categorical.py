"""``OneHotCategorical(probs=None, logits=None)``: a Categorical whose samples are one-hot
vectors of length K (as ``torch.distributions``).

Stage: runtime, engine-neutral; everything but the encoding is delegated to a ``Categorical``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from transgrad.distributions import constraints
from transgrad.distributions.categorical import Categorical
from transgrad.distributions.distribution import Distribution

__all__ = ["OneHotCategorical"]


class OneHotCategorical(Distribution):
    """The categorical distribution with one-hot vectors of length K as samples."""

    arg_constraints: ClassVar[dict[str, Any]] = {
        "probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = tuple(self._categorical.param_shape[-1:])
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> OneHotCategorical:
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = tuple(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        super(OneHotCategorical, new).__init__(batch_shape, self.event_shape,
                                               validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _engine(self) -> Any:
        return self._categorical._engine

    @property
    def _param(self) -> Any:
        return self._categorical._param

    @property
    def probs(self) -> Any:
        return self._categorical.probs

    @property
    def logits(self) -> Any:
        return self._categorical.logits

    @property
    def mean(self) -> Any:
        return self._categorical.probs

    @property
    def mode(self) -> Any:
        return self._one_hot(self._categorical.mode)

    @property
    def variance(self) -> Any:
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self) -> Any:
        return self._categorical.param_shape

    def _one_hot(self, index: Any) -> Any:
        classes = self._engine.arange(self._categorical._num_events, dtype=self._engine.int64)
        return (index.unsqueeze(-1) == classes).to(self._categorical._param.dtype)

    def sample(self, sample_shape: Any = ()) -> Any:
        return self._one_hot(self._categorical.sample(sample_shape))

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self) -> Any:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Any:
        n = self.event_shape[0]
        eng = self._engine
        values = eng.eye(n, dtype=self._param.dtype)
        values = values.reshape((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + self.batch_shape + (n,))
        return values
