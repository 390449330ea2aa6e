"""``transgrad.nn.functional``: the functional forms (linear, activations, dropout, losses ...).

The functions of ``transgrad._nn.functional``, engine-neutral (each finds its engine from its
tensor input), so ``transgrad.reference.nn.functional`` exports the very same functions.
"""

from transgrad._api.linalg import pdist  # torch.nn.functional.pdist is torch.pdist
from transgrad._nn.functional import *  # noqa: F403  (_nn/functional.py lists them once)
from transgrad._nn.functional import __all__ as _functional
from transgrad._nn.functional_attention import (
    multi_head_attention_forward,
    scaled_dot_product_attention,
)

__all__ = [*_functional, "pdist", "scaled_dot_product_attention", "multi_head_attention_forward"]
