"""``Gamma(concentration, rate)`` (as ``torch.distributions``), and the standard-gamma sampler
that Beta and Dirichlet share.

Stage: runtime, engine-neutral. ``log_prob`` and ``entropy`` need the engine's ``lgamma`` and
``digamma`` (``utils.special``). Sampling needs no special op: see Note [Gamma sampling].

Note [Gamma sampling]
~~~~~~~~~~~~~~~~~~~~~
An engine with a ``_standard_gamma`` op samples with it. Otherwise samples are drawn here with
Marsaglia and Tsang's rejection method (alpha < 1 boosted: G(alpha) = G(alpha + 1) U^(1/alpha)),
vectorised over the pending draws, from the engine's ``randn`` and ``rand``. rsample is
differentiable by implicit reparameterisation: for x ~ Gamma(alpha, 1) with CDF P(alpha, x),
dx/dalpha = -(dP/dalpha) / p(x; alpha). dP/dalpha is taken by a central difference of the
regularised incomplete gamma function (series / continued fraction, in float64, ~1e-9
relative), and enters the graph as ``x + g * (alpha - alpha.detach())``: the value is x, the
first derivative is g. Derivatives of second order through the sample treat g as a constant
(they are exact for the rate, not for the concentration).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from transgrad.distributions import constraints
from transgrad.distributions.distribution import Distribution
from transgrad.distributions.utils import (
    as_engine_tensor,
    broadcast_all,
    engine_of,
    special,
    special_op,
    xlogy_zero,
)

__all__ = ["Gamma"]


def _gammainc_scalar(a: float, x: float) -> float:
    """The regularised lower incomplete gamma function P(a, x)."""
    if x <= 0.0:
        return 0.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1.0:  # series
        term = total = 1.0 / a
        n = a
        for _ in range(1000):
            n += 1.0
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-17:
                break
        return total * math.exp(log_front)
    # continued fraction for Q = 1 - P (modified Lentz)
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return 1.0 - math.exp(log_front) * h


_gammainc = np.vectorize(_gammainc_scalar, otypes=[np.float64])


def _implicit_grad(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """dx/dalpha of a standard-gamma sample x at fixed CDF value (Note [Gamma sampling])."""
    h = 1e-5 * np.maximum(alpha, 1.0)
    dp = (_gammainc(alpha + h, x) - _gammainc(alpha - np.minimum(h, alpha / 2), x)) / (
        h + np.minimum(h, alpha / 2))
    lgam = np.vectorize(math.lgamma, otypes=[np.float64])(alpha)
    log_pdf = (alpha - 1.0) * np.log(x) - x - lgam
    return -dp / np.exp(log_pdf)


def _marsaglia_tsang(eng: Any, alpha: np.ndarray) -> np.ndarray:
    """Standard-gamma draws for each entry of ``alpha`` (float64), from the engine's randoms."""
    alpha = np.asarray(alpha, dtype=np.float64, order="C")
    boost = alpha < 1.0
    a = np.where(boost, alpha + 1.0, alpha).reshape(-1)
    d = a - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    out = np.empty(alpha.shape)  # C-contiguous: ``flat`` is a view of it
    pending = np.arange(a.size)
    flat = out.reshape(-1)
    while pending.size:
        z = np.asarray(eng.randn(pending.size, dtype=eng.float64))
        u = np.asarray(eng.rand(pending.size, dtype=eng.float64))
        v = (1.0 + c[pending] * z) ** 3
        with np.errstate(invalid="ignore", divide="ignore"):
            ok = (v > 0) & (np.log(u) < 0.5 * z * z + d[pending] - d[pending] * v
                            + d[pending] * np.log(v))
        flat[pending[ok]] = d[pending[ok]] * v[ok]
        pending = pending[~ok]
    if boost.any():
        u = np.asarray(eng.rand(int(boost.sum()), dtype=eng.float64))
        out[boost] = out[boost] * u ** (1.0 / alpha[boost])
    return out


def standard_gamma(concentration: Any) -> Any:
    """A Gamma(concentration, 1) sample of the shape of ``concentration``, differentiable with
    respect to it (Note [Gamma sampling])."""
    eng = engine_of(concentration)
    op = special_op(eng, "_standard_gamma")
    if op is not None:
        return op(concentration)
    alpha = np.asarray(concentration.detach(), dtype=np.float64)
    x = np.maximum(_marsaglia_tsang(eng, alpha), np.finfo(concentration.dtype).tiny)
    sample = eng.tensor(x, dtype=concentration.dtype)
    if not (concentration.requires_grad and eng.is_grad_enabled()):
        return sample
    grad = eng.tensor(_implicit_grad(alpha, x), dtype=concentration.dtype)
    return sample + grad * (concentration - concentration.detach())


class Gamma(Distribution):
    """The gamma distribution with shape ``concentration`` and rate ``rate``."""

    arg_constraints: ClassVar[dict[str, Any]] = {
        "concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any,
                 validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate,
                                                      default_engine=self._default_engine)
        super().__init__(tuple(self.concentration.shape), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gamma:
        return self._expanded(Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self) -> Any:
        return self.concentration / self.rate

    @property
    def mode(self) -> Any:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Any:
        return self.concentration / self.rate ** 2

    def rsample(self, sample_shape: Any = ()) -> Any:
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return value.clamp(min=float(np.finfo(value.dtype).tiny))

    def log_prob(self, value: Any) -> Any:
        value = as_engine_tensor(value, self.rate)
        if self._validate_args:
            self._validate_sample(value)
        return (xlogy_zero(self.concentration, self.rate)
                + xlogy_zero(self.concentration - 1, value)
                - self.rate * value - special("lgamma", self.concentration))

    def entropy(self) -> Any:
        c = self.concentration
        return (c - self.rate.log() + special("lgamma", c)
                + (1.0 - c) * special("digamma", c))

    def cdf(self, value: Any) -> Any:
        raise NotImplementedError("Gamma.cdf: transgrad does not have the regularised "
                                  "incomplete gamma op (gammainc) yet")
