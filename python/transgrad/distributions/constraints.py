"""Constraints: the sets a distribution's parameters and samples live in (as
``torch.distributions.constraints``).

Stage: runtime, engine-neutral. ``Constraint.check(value)`` takes a tensor of either engine and
returns a bool tensor of the batch shape (event dimensions reduced, ``event_dim`` of them).
Reprs are torch's (``GreaterThan(lower_bound=0.0)``): validation messages print them.
"""

from __future__ import annotations

from typing import Any

from transgrad.distributions.utils import engine_of, format_value, sum_rightmost_all

__all__ = [
    "Constraint", "boolean", "dependent", "dependent_property", "greater_than",
    "greater_than_eq", "half_open_interval", "independent", "integer_interval", "interval",
    "is_dependent", "less_than", "lower_cholesky", "lower_triangular", "nonnegative",
    "nonnegative_integer", "one_hot", "positive", "positive_definite", "positive_integer", "real",
    "real_vector", "simplex", "square", "symmetric", "unit_interval",
]


class Constraint:
    """A region over which a variable is valid. ``is_discrete`` and ``event_dim`` (how many
    rightmost dimensions one check covers) are class attributes, as torch's."""

    is_discrete = False
    event_dim = 0

    def check(self, value: Any) -> Any:
        """A bool tensor: whether each event of ``value`` satisfies the constraint."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A placeholder for a set that depends on other parameters (``Uniform.support``): it
    cannot be checked, and validation skips it."""

    def __init__(self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return bool(self._is_discrete)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return int(self._event_dim)

    def __call__(self, *, is_discrete: Any = NotImplemented,
                 event_dim: Any = NotImplemented) -> _Dependent:
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value: Any) -> Any:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """``@constraints.dependent_property``: a property of the distribution (its value is the
    real constraint, e.g. ``interval(low, high)``) that reads as dependent on the class."""

    def __init__(self, fn: Any = None, *, is_discrete: Any = NotImplemented,
                 event_dim: Any = NotImplemented) -> None:
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn: Any) -> _DependentProperty:  # type: ignore[override]
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """``base_constraint`` with ``reinterpreted_batch_ndims`` more dimensions in the event."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        if not isinstance(base_constraint, Constraint):
            raise TypeError(f"expected a Constraint, got {type(base_constraint).__name__}")
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise ValueError("reinterpreted_batch_ndims must be a non-negative int, got "
                             f"{reinterpreted_batch_ndims!r}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: Any) -> Any:
        result = self.base_constraint.check(value)
        if result.ndim < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.ndim}")
        if self.reinterpreted_batch_ndims:
            result = sum_rightmost_all(result, self.reinterpreted_batch_ndims)
        return result

    def __repr__(self) -> str:
        return (f"{type(self).__name__[1:]}({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value: Any) -> Any:
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value: Any) -> Any:
        is_boolean = ((value == 0) | (value == 1)).all(-1)
        is_normalized = value.sum(-1) == 1
        return is_boolean & is_normalized


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Any) -> Any:
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return (f"{type(self).__name__[1:]}(lower_bound={format_value(self.lower_bound)}, "
                f"upper_bound={format_value(self.upper_bound)})")


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Any) -> Any:
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(lower_bound={format_value(self.lower_bound)})"


class _Real(Constraint):
    def check(self, value: Any) -> Any:
        return value.isnan().logical_not()


class _GreaterThan(Constraint):
    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Any) -> Any:
        return value > self.lower_bound

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(lower_bound={format_value(self.lower_bound)})"


class _GreaterThanEq(_GreaterThan):
    def check(self, value: Any) -> Any:
        return value >= self.lower_bound


class _LessThan(Constraint):
    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Any) -> Any:
        return value < self.upper_bound

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(upper_bound={format_value(self.upper_bound)})"


class _Interval(Constraint):
    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Any) -> Any:
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return (f"{type(self).__name__[1:]}(lower_bound={format_value(self.lower_bound)}, "
                f"upper_bound={format_value(self.upper_bound)})")


class _HalfOpenInterval(_Interval):
    def check(self, value: Any) -> Any:
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(Constraint):
    """Nonnegative entries summing to 1 along the last dimension (within 1e-6)."""

    event_dim = 1

    def check(self, value: Any) -> Any:
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Square(Constraint):
    event_dim = 2

    def check(self, value: Any) -> Any:
        eng = engine_of(value)
        square = value.shape[-2] == value.shape[-1]
        return eng.full(tuple(value.shape[:-2]), square, dtype=eng.bool)


class _Symmetric(_Square):
    def check(self, value: Any) -> Any:
        square = super().check(value)
        if not bool(square.all()):
            return square
        return ((value - value.mT).abs() <= 1e-6 * (1 + value.abs())).flatten(-2).all(-1)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value: Any) -> Any:
        return (value.tril() == value).flatten(-2).min(-1).values


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value: Any) -> Any:
        lower = (value.tril() == value).flatten(-2).min(-1).values
        positive_diagonal = (value.diagonal(0, -2, -1) > 0).min(-1).values
        return lower & positive_diagonal


class _PositiveDefinite(_Symmetric):
    """Symmetric with a Cholesky factor (checked with the package's Cholesky)."""

    def check(self, value: Any) -> Any:
        from transgrad.distributions.linalg import cholesky_ex

        symmetric = super().check(value)
        _, ok = cholesky_ex(value.detach())
        return symmetric & ok


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
positive_definite = _PositiveDefinite()
square = _Square()
symmetric = _Symmetric()
