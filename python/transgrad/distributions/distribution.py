"""``Distribution``: the base class of every distribution (as ``torch.distributions``).

Stage: runtime, engine-neutral. A distribution holds parameter tensors of one engine (Note
[Which engine] in utils.py) and a ``batch_shape`` / ``event_shape`` (tuples, the engines' shape
type). Argument validation (on by default, as torch's under ``__debug__``) checks parameters in
``__init__`` against ``arg_constraints`` and values of ``log_prob``/``cdf``/... against
``support``, with torch's messages.
"""

from __future__ import annotations

import warnings
from typing import Any

from transgrad.distributions import constraints
from transgrad.distributions.utils import (
    DEFAULT_ENGINE,
    engine_of,
    format_value,
    is_tensor,
    lazy_property,
    shape_of,
)

__all__ = ["Distribution"]


class Distribution:
    """Abstract base class for probability distributions."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__
    _default_engine = DEFAULT_ENGINE  # the engine of a distribution built from numbers only

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for every distribution built afterwards."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Any = (), event_shape: Any = (),
                 validate_args: bool | None = None) -> None:
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    f"{self.__class__} does not define `arg_constraints`. Please set "
                    "`arg_constraints = {}` or initialize the distribution with "
                    "`validate_args=False` to turn off validation.", stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # cannot be checked
                if param not in self.__dict__ and isinstance(getattr(type(self), param),
                                                             lazy_property):
                    continue  # the parameter not given: derived, valid by construction
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(
                        f"Expected parameter {param} "
                        f"({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {self!r} "
                        f"to satisfy the constraint {constraint!r}, "
                        f"but found invalid values:\n{format_value(value)}")

    # ---- shapes ---------------------------------------------------------------------------

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self._batch_shape

    @property
    def event_shape(self) -> tuple[int, ...]:
        return self._event_shape

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """A distribution of the same kind with parameters expanded to ``batch_shape``."""
        raise NotImplementedError

    def _expanded(self, cls: type, batch_shape: Any, _instance: Any,
                  names: tuple[str, ...]) -> Any:
        """``expand`` for a distribution whose parameters ``names`` all have the batch shape
        (no event dimensions): each is expanded, validation state carried over."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = tuple(batch_shape)
        for name in names:
            setattr(new, name, getattr(self, name).expand(batch_shape))
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:  # type: ignore[misc]
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__() method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def _extended_shape(self, sample_shape: Any = ()) -> tuple[int, ...]:
        return shape_of(sample_shape) + self._batch_shape + self._event_shape

    # ---- the engine -----------------------------------------------------------------------

    @property
    def _engine(self) -> Any:
        """The engine module of this distribution's parameters (Note [Which engine])."""
        for name in self.arg_constraints:
            value = self.__dict__.get(name)
            if is_tensor(value):
                return engine_of(value)
        raise NotImplementedError(f"{type(self).__name__} does not say which engine it uses")

    # ---- the interface --------------------------------------------------------------------

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        raise NotImplementedError

    @property
    def support(self) -> Any:
        raise NotImplementedError

    @property
    def mean(self) -> Any:
        raise NotImplementedError(f"{self.__class__} does not implement mean")

    @property
    def mode(self) -> Any:
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Any:
        raise NotImplementedError(f"{self.__class__} does not implement variance")

    @property
    def stddev(self) -> Any:
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = ()) -> Any:
        """A sample (or batch of samples, shaped ``sample_shape + batch + event``), no grad."""
        with self._engine.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Any:
        """A reparameterised sample: differentiable with respect to the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Any:
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning,
                      stacklevel=2)
        return self.sample((n,))

    def log_prob(self, value: Any) -> Any:
        raise NotImplementedError

    def cdf(self, value: Any) -> Any:
        raise NotImplementedError

    def icdf(self, value: Any) -> Any:
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Any:
        raise NotImplementedError

    def entropy(self) -> Any:
        raise NotImplementedError

    def perplexity(self) -> Any:
        return self.entropy().exp()

    # ---- validation -----------------------------------------------------------------------

    def _validate_sample(self, value: Any) -> None:
        """Raise ValueError (torch's words) unless ``value`` is a tensor broadcastable with
        batch_shape + event_shape whose events lie in the support."""
        if not is_tensor(value):
            raise ValueError("The value argument to log_prob must be a Tensor")
        shape = tuple(value.shape)
        event_dim_start = len(shape) - len(self._event_shape)
        if shape[event_dim_start:] != self._event_shape:
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{_size(shape)} vs {_size(self._event_shape)}.")
        expected = self._batch_shape + self._event_shape
        for i, j in zip(reversed(shape), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{_size(shape)} vs {_size(expected)}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=2)
            return
        assert support is not None
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) "
                f"of the distribution {self!r}, "
                f"but found invalid values:\n{format_value(value)}")

    def __repr__(self) -> str:
        params = [(k, self.__dict__[k]) for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{k}: {format_value(v) if v.numel() == 1 else _size(v.shape)}"
                         for k, v in params)
        return f"{self.__class__.__name__}({args})"


def _size(shape: Any) -> str:
    """A shape as the engines print it (a tuple, where torch prints ``torch.Size([...])``)."""
    return str(tuple(shape))
