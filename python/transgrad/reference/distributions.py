"""``transgrad.reference.distributions``: ``transgrad.distributions`` with the reference engine
as the default for distributions built from Python numbers only.

Distributions compute with the engine of their parameter tensors (Note [Which engine] in
transgrad/distributions/utils.py), so the same classes serve both engines; only "which engine
for ``Normal(0.0, 1.0)``" differs. The classes that accept numbers are subclassed here with
``_default_engine = "transgrad.reference"`` (same names, so reprs and KL rules are the same);
the others are re-exported as they are.
"""

from transgrad import distributions as _d
from transgrad.distributions import (  # noqa: F401  (re-exported)
    AffineTransform,
    Categorical,
    ComposeTransform,
    Dirichlet,
    Distribution,
    ExpTransform,
    Independent,
    MultivariateNormal,
    OneHotCategorical,
    SigmoidTransform,
    TanhTransform,
    Transform,
    TransformedDistribution,
    constraints,
    kl_divergence,
    register_kl,
    transforms,
)

_REFERENCE = "transgrad.reference"


class Normal(_d.Normal):
    """``transgrad.distributions.Normal``; numbers alone make reference tensors."""

    _default_engine = _REFERENCE


class Bernoulli(_d.Bernoulli):
    """``transgrad.distributions.Bernoulli``; numbers alone make reference tensors."""

    _default_engine = _REFERENCE


class Uniform(_d.Uniform):
    """``transgrad.distributions.Uniform``; numbers alone make reference tensors."""

    _default_engine = _REFERENCE


class Exponential(_d.Exponential):
    """``transgrad.distributions.Exponential``; numbers alone make reference tensors."""

    _default_engine = _REFERENCE


class Laplace(_d.Laplace):
    """``transgrad.distributions.Laplace``; numbers alone make reference tensors."""

    _default_engine = _REFERENCE


class Gamma(_d.Gamma):
    """``transgrad.distributions.Gamma``; numbers alone make reference tensors."""

    _default_engine = _REFERENCE


class Beta(_d.Beta):
    """``transgrad.distributions.Beta``; numbers alone make reference tensors."""

    _default_engine = _REFERENCE


__all__ = list(_d.__all__)
