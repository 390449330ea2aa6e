"""``transgrad.nn.functional``: the functional forms (linear, activations, dropout, losses ...).

The functions of ``transgrad._nn.functional``, engine-neutral (each finds its engine from its
tensor input), so ``transgrad.reference.nn.functional`` exports the very same functions.
"""

from transgrad._api.extra_functions import pad  # torch.nn.functional.pad
from transgrad._api.linalg import pdist  # torch.nn.functional.pdist is torch.pdist
from transgrad._nn.functional import (
    adaptive_avg_pool2d,
    avg_pool2d,
    batch_norm,
    binary_cross_entropy_with_logits,
    conv1d,
    conv2d,
    cross_entropy,
    dropout,
    elu,
    embedding,
    gelu,
    layer_norm,
    leaky_relu,
    linear,
    log_softmax,
    max_pool2d,
    mse_loss,
    nll_loss,
    one_hot,
    relu,
    sigmoid,
    silu,
    softmax,
    softplus,
    tanh,
)

__all__ = [
    "adaptive_avg_pool2d", "avg_pool2d", "batch_norm", "binary_cross_entropy_with_logits",
    "conv1d", "conv2d", "cross_entropy", "dropout", "elu", "embedding", "gelu",
    "layer_norm", "leaky_relu", "linear", "log_softmax", "max_pool2d", "mse_loss",
    "nll_loss", "one_hot", "pad", "pdist", "relu", "sigmoid", "silu", "softmax", "softplus", "tanh",
]
