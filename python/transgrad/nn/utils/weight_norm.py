"""Weight normalisation by a forward pre-hook, at torch's path (``torch.nn.utils.weight_norm``);
engine-neutral functions (``transgrad._nn.weight_norm``)."""

from transgrad._nn.weight_norm import WeightNorm, remove_weight_norm, weight_norm

__all__ = ["WeightNorm", "remove_weight_norm", "weight_norm"]
