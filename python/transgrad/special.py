"""``transgrad.special``: torch.special's names for the special functions both engines have.

Input: the engine-neutral functions of ``transgrad._api`` (each finds its engine from its
tensor, so this one module serves ``transgrad`` and ``transgrad.reference``). Output: torch's
``special`` names: ``erfinv``, ``gammaln`` (lgamma), ``psi`` (digamma), ``expit`` (sigmoid), ...
"""

from transgrad._api.composites import (  # noqa: F401
    entr,
    erfcx,
    i0,
    i0e,
    i1,
    i1e,
    log_ndtr,
    multigammaln,
    ndtri,
    xlog1py,
)
from transgrad._api.functions import (  # noqa: F401
    erf,
    exp,
    expm1,
    log1p,
    log_softmax,
    logsumexp,
    round,
    sigmoid,
    softmax,
)
from transgrad._api.pointwise import (  # noqa: F401
    digamma,
    erfc,
    erfinv,
    exp2,
    lgamma,
    logit,
    polygamma,
    xlogy,
)
from transgrad._api.polynomials import *  # noqa: F401,F403
from transgrad._api.polynomials import __all__ as _polynomials

expit, gammaln, psi = sigmoid, lgamma, digamma

__all__ = ["digamma", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "log1p",
           "log_softmax", "logit", "logsumexp", "polygamma", "psi", "round", "softmax",
           "xlogy", "entr", "erfcx", "i0", "i0e", "i1", "i1e", "log_ndtr", "multigammaln",
           "xlog1py", "ndtri", *_polynomials]
