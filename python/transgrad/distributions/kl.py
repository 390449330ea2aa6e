"""``kl_divergence(p, q)`` and ``register_kl`` (as ``torch.distributions.kl``).

Stage: runtime, engine-neutral. A registry maps (type of p, type of q) to a function; lookup
takes the most specific registered pair along both classes' MROs (so subclasses, like the
reference-engine classes of ``transgrad.reference.distributions``, use their parents' rules).
Closed forms for the usual pairs follow; the ones with lgamma/digamma need those ops.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from transgrad.distributions.bernoulli import Bernoulli
from transgrad.distributions.beta import Beta
from transgrad.distributions.categorical import Categorical
from transgrad.distributions.dirichlet import Dirichlet
from transgrad.distributions.distribution import Distribution
from transgrad.distributions.exponential import Exponential
from transgrad.distributions.gamma import Gamma
from transgrad.distributions.independent import Independent
from transgrad.distributions.laplace import Laplace
from transgrad.distributions.linalg import solve_triangular_lower
from transgrad.distributions.multivariate_normal import MultivariateNormal, _batch_mahalanobis
from transgrad.distributions.normal import Normal
from transgrad.distributions.one_hot_categorical import OneHotCategorical
from transgrad.distributions.uniform import Uniform
from transgrad.distributions.utils import broadcast_shapes, softplus, special, sum_rightmost

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: dict[tuple[type, type], Callable[[Any, Any], Any]] = {}
_KL_MEMOIZE: dict[tuple[type, type], Any] = {}


def register_kl(type_p: type, type_q: type) -> Callable[[Callable], Callable]:
    """Decorator registering a KL(p || q) function for the pair of distribution classes."""
    if not isinstance(type_p, type) or not issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) or not issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun: Callable) -> Callable:
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun

    return decorator


def _dispatch_kl(type_p: type, type_q: type) -> Any:
    """The function of the most specific registered pair (nearest in both MROs)."""
    matches = [(sp, sq) for sp, sq in _KL_REGISTRY
               if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return NotImplemented
    best = min(matches, key=lambda m: (type_p.__mro__.index(m[0]) + type_q.__mro__.index(m[1]),
                                       type_p.__mro__.index(m[0])))
    return _KL_REGISTRY[best]


def kl_divergence(p: Distribution, q: Distribution) -> Any:
    """KL(p || q), batched over the (broadcast) batch shapes of p and q."""
    key = (type(p), type(q))
    fun = _KL_MEMOIZE.get(key)
    if fun is None:
        fun = _KL_MEMOIZE[key] = _dispatch_kl(*key)
    if fun is NotImplemented:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {p.__class__.__name__} and "
            f"q type {q.__class__.__name__}")
    return fun(p, q)


def _infinite_like(t: Any) -> Any:
    return t * 0 + math.inf


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Any:
    var_ratio = (p.scale / q.scale) ** 2
    t1 = ((p.loc - q.loc) / q.scale) ** 2
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Any:
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = t1.masked_fill(q.probs == 0, math.inf).masked_fill(p.probs == 0, 0.0)
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = t2.masked_fill(q.probs == 1, math.inf).masked_fill(p.probs == 1, 0.0)
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Any:
    t = p.probs * (p.logits - q.logits)
    t = t.masked_fill((q.probs == 0).expand_as(t), math.inf)
    t = t.masked_fill((p.probs == 0).expand_as(t), 0.0)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> Any:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Any:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return result.masked_fill((q.low > p.low).logical_or(q.high < p.high), math.inf)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Any:
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Any:
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * (-loc_abs_diff / p.scale).exp()
    return t1 + t2 + t3 - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p: MultivariateNormal,
                                              q: MultivariateNormal) -> Any:
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event "
                         "shapes cannot be computed")
    p_tril, q_tril = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = (q_tril.diagonal(0, -2, -1).log().sum(-1)
                  - p_tril.diagonal(0, -2, -1).log().sum(-1))
    n = p.event_shape[0]
    batch = broadcast_shapes(tuple(q_tril.shape[:-2]), tuple(p_tril.shape[:-2]))
    solved = solve_triangular_lower(q_tril.expand(batch + (n, n)), p_tril.expand(batch + (n, n)))
    term2 = (solved ** 2).sum((-2, -1))
    term3 = _batch_mahalanobis(q_tril, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Any:
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = (special("lgamma", q.concentration1) + special("lgamma", q.concentration0)
          + special("lgamma", sum_p))
    t2 = (special("lgamma", p.concentration1) + special("lgamma", p.concentration0)
          + special("lgamma", sum_q))
    t3 = (p.concentration1 - q.concentration1) * special("digamma", p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * special("digamma", p.concentration0)
    t5 = (sum_q - sum_p) * special("digamma", sum_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Any:
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = special("lgamma", q.concentration) - special("lgamma", p.concentration)
    t3 = (p.concentration - q.concentration) * special("digamma", p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Any:
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = special("lgamma", sum_p) - special("lgamma", sum_q)
    t2 = (special("lgamma", p.concentration) - special("lgamma", q.concentration)).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = special("digamma", p.concentration) - special("digamma", sum_p).unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Any:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return sum_rightmost(result, p.reinterpreted_batch_ndims)
