"""Engine-neutral instance normalisation (torch.nn.modules.instancenorm).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

from typing import Any

from .. import functional as F
from .batchnorm import _BatchNorm


class _InstanceNorm(_BatchNorm):
    """Normalise each channel of each sample over its spatial positions. The options,
    parameters and buffers of batch norm (``_BatchNorm``), with torch's instance-norm
    defaults: no affine parameters, no running statistics."""

    _is_instance_norm = True

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = False, track_running_stats: bool = False,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype)

    def forward(self, x: Any) -> Any:
        batched = max(self._dims)
        if x.ndim not in self._dims:
            raise ValueError(f"expected {batched - 1}D or {batched}D input (got {x.ndim}D "
                             "input)")
        unbatched = x.ndim == batched - 1
        if unbatched:
            x = x.unsqueeze(0)
        if self.affine and x.shape[1] != self.num_features:
            raise ValueError(f"expected input's size at dim=1 to match num_features "
                             f"({self.num_features}), but got: {x.shape[1]}.")
        use_input_stats = self.training or not self.track_running_stats
        # torch's instance norm takes momentum=None as 0 (the running stats stay put) and
        # never counts num_batches_tracked
        momentum = 0.0 if self.momentum is None else float(self.momentum)
        y = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            use_input_stats, momentum, self.eps)
        return y.squeeze(0) if unbatched else y


class InstanceNorm1d(_InstanceNorm):
    """Instance norm of (N, C, L) or unbatched (C, L) inputs."""

    _dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """Instance norm of (N, C, H, W) or unbatched (C, H, W) inputs."""

    _dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    """Instance norm of (N, C, D, H, W) or unbatched (C, D, H, W) inputs."""

    _dims = (4, 5)
