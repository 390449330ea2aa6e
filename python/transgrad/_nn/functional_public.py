"""The public ``nn.functional`` namespace, engine-neutral (each function finds its engine from its
tensor input): ``transgrad.nn.functional`` and ``transgrad.reference.nn.functional`` both
re-export it, so the two hold the very same functions.

It imports nothing that binds an engine, so the reference engine imports without
``transgrad._C``.
"""

from transgrad._api.linalg import pdist  # torch.nn.functional.pdist is torch.pdist
from transgrad._nn.functional import *  # noqa: F403  (_nn/functional.py lists them once)
from transgrad._nn.functional import __all__ as _functional
from transgrad._nn.functional_attention import (
    multi_head_attention_forward,
    scaled_dot_product_attention,
)

__all__ = [*_functional, "pdist", "scaled_dot_product_attention", "multi_head_attention_forward"]
