"""``transgrad.distributions``: probability distributions as ``torch.distributions``.

Stage: runtime, engine-neutral: a distribution computes with the engine of its parameter
tensors (``transgrad`` or ``transgrad.reference``; Note [Which engine] in utils.py). Built from
Python numbers only, it uses the compiled engine here, the reference engine when taken from
``transgrad.reference.distributions``.

Files: utils.py (engine lookup, broadcasting), constraints.py, distribution.py (the base class),
one module per distribution, linalg.py (Cholesky and triangular solve from ops), transforms.py,
transformed_distribution.py, kl.py (``kl_divergence`` / ``register_kl``).
"""

from transgrad.distributions import constraints, transforms
from transgrad.distributions.bernoulli import Bernoulli
from transgrad.distributions.beta import Beta
from transgrad.distributions.categorical import Categorical
from transgrad.distributions.dirichlet import Dirichlet
from transgrad.distributions.distribution import Distribution
from transgrad.distributions.exponential import Exponential
from transgrad.distributions.gamma import Gamma
from transgrad.distributions.independent import Independent
from transgrad.distributions.kl import kl_divergence, register_kl
from transgrad.distributions.laplace import Laplace
from transgrad.distributions.multivariate_normal import MultivariateNormal
from transgrad.distributions.normal import Normal
from transgrad.distributions.one_hot_categorical import OneHotCategorical
from transgrad.distributions.transformed_distribution import TransformedDistribution
from transgrad.distributions.transforms import (
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    SigmoidTransform,
    TanhTransform,
    Transform,
)
from transgrad.distributions.uniform import Uniform

__all__ = [
    "AffineTransform", "Bernoulli", "Beta", "Categorical", "ComposeTransform", "Dirichlet",
    "Distribution", "ExpTransform", "Exponential", "Gamma", "Independent", "Laplace",
    "MultivariateNormal", "Normal", "OneHotCategorical", "SigmoidTransform", "TanhTransform",
    "Transform", "TransformedDistribution", "Uniform", "constraints", "kl_divergence",
    "register_kl", "transforms",
]
