"""``MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None, scale_tril=None)``
(as ``torch.distributions``).

Stage: runtime, engine-neutral. Everything is computed from the lower Cholesky factor L of the
covariance (``_unbroadcasted_scale_tril``, not expanded to the batch): given directly, or
factorised from the covariance / precision with ``linalg.py`` (Note [Cholesky from ops]).
rsample is ``loc + L @ eps``; log_prob solves ``L y = x - loc`` by forward substitution.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from transgrad.distributions import constraints
from transgrad.distributions.distribution import Distribution
from transgrad.distributions.linalg import cholesky, solve_triangular_lower
from transgrad.distributions.utils import broadcast_shapes, engine_of, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(matrix: Any, vector: Any) -> Any:
    """matrix @ vector over broadcast batch dimensions."""
    return (matrix @ vector.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(tril: Any, x: Any) -> Any:
    """The squared Mahalanobis distance x^T (L L^T)^-1 x = |L^-1 x|^2."""
    y = solve_triangular_lower(tril, x.unsqueeze(-1)).squeeze(-1)
    return (y * y).sum(-1)


def _precision_to_scale_tril(precision: Any) -> Any:
    """The Cholesky factor of the covariance P^-1: with P = Lp Lp^T, the covariance is
    Lp^-T Lp^-1 (a product of triangular inverses), factorised again."""
    eng = engine_of(precision)
    lp = cholesky(precision)
    eye = eng.eye(precision.shape[-1], dtype=precision.dtype)
    lp_inv = solve_triangular_lower(lp, eye.expand(tuple(lp.shape)))
    return cholesky(lp_inv.mT @ lp_inv)


class MultivariateNormal(Distribution):
    """The multivariate normal N(loc, Sigma), Sigma given by exactly one of
    ``covariance_matrix``, ``precision_matrix`` (its inverse) or ``scale_tril`` (its lower
    Cholesky factor)."""

    arg_constraints: ClassVar[dict[str, Any]] = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Any, covariance_matrix: Any = None, precision_matrix: Any = None,
                 scale_tril: Any = None, validate_args: bool | None = None) -> None:
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, scale_tril, precision_matrix)]
        if sum(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        if scale_tril is not None:
            matrix, name = scale_tril, "scale_tril"
        elif covariance_matrix is not None:
            matrix, name = covariance_matrix, "covariance_matrix"
        else:
            matrix, name = precision_matrix, "precision_matrix"
        if matrix.ndim < 2:
            raise ValueError(f"{name} matrix must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        batch_shape = broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, tuple(self.loc.shape[-1:]), validate_args=validate_args)

        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MultivariateNormal:
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = tuple(batch_shape)
        loc_shape = batch_shape + self.event_shape
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape,
                                                validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _engine(self) -> Any:
        return engine_of(self.loc)

    def _matrix_shape(self) -> Any:
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self) -> Any:
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Any:
        tril = self._unbroadcasted_scale_tril
        return (tril @ tril.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Any:
        tril = self._unbroadcasted_scale_tril
        eye = self._engine.eye(tril.shape[-1], dtype=tril.dtype)
        tril_inv = solve_triangular_lower(tril, eye.expand(tuple(tril.shape)))
        return (tril_inv.mT @ tril_inv).expand(self._matrix_shape())

    @property
    def mean(self) -> Any:
        return self.loc

    @property
    def mode(self) -> Any:
        return self.loc

    @property
    def variance(self) -> Any:
        return (self._unbroadcasted_scale_tril ** 2).sum(-1).expand(
            self._batch_shape + self._event_shape)

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        eps = self._engine.randn(shape, dtype=self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self) -> Any:
        return self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)

    def log_prob(self, value: Any) -> Any:
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        m = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) - self._half_log_det()

    def entropy(self) -> Any:
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        if len(self._batch_shape) == 0:
            return h
        return h.expand(self._batch_shape)
