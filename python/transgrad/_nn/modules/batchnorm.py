"""Engine-neutral batch normalisation (torch.nn.modules.batchnorm).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

from typing import Any

from transgrad._device import check_device

from .. import functional as F
from ..module import Module, dtype_arg


class _BatchNorm(Module):
    """Batch norm over the channel dim (dim 1), as torch.

    Parameters ``weight`` (ones) and ``bias`` (zeros; none with ``bias=False``) when
    ``affine``; buffers
    ``running_mean`` (zeros), ``running_var`` (ones) and ``num_batches_tracked`` (int64 0-d)
    when ``track_running_stats``. Training normalises by the batch statistics and updates the
    running ones in place: ``(1 - momentum) * running + momentum * batch`` (the batch
    variance unbiased), with ``momentum=None`` a cumulative average
    (``momentum = 1 / num_batches_tracked``). Eval normalises by the running statistics
    (by the batch's when there are none).
    """

    _dims: tuple = ()   # the input ranks accepted
    _is_instance_norm = False  # instance norm reuses this class; torch's is no _BatchNorm

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        check_device(device)
        self.num_features, self.eps, self.momentum = int(num_features), float(eps), momentum
        self.affine, self.track_running_stats = bool(affine), bool(track_running_stats)
        m, dt = self._E.module, dtype_arg(self._E, dtype)
        if self.affine:
            self.weight = self.Parameter(m.ones(self.num_features, dtype=dt))
            if bias:
                self.bias = self.Parameter(m.zeros(self.num_features, dtype=dt))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", m.zeros(self.num_features, dtype=dt))
            self.register_buffer("running_var", m.ones(self.num_features, dtype=dt))
            self.register_buffer("num_batches_tracked", m.tensor(0, dtype=m.int64))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            E = self._E
            E.assign_(self.running_mean, self.running_mean.detach() * 0.0)
            E.assign_(self.running_var, self.running_var.detach() * 0.0 + 1.0)
            E.assign_(self.num_batches_tracked, self.num_batches_tracked.detach() * 0)

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            E = self._E
            E.assign_(self.weight, self.weight.detach() * 0.0 + 1.0)
            if self.bias is not None:
                E.assign_(self.bias, self.bias.detach() * 0.0)

    def _check_input_dim(self, x: Any) -> None:
        if x.ndim not in self._dims:
            want = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {want} input (got {x.ndim}D input) in "
                             f"{type(self).__name__}")

    def forward(self, x: Any) -> Any:
        self._check_input_dim(x)
        if x.shape[1] != self.num_features and (self.track_running_stats or self.affine):
            # torch's words, from its batch_norm kernel (which checks the tensors it holds)
            what = "running_mean" if self.track_running_stats else "weight"
            raise RuntimeError(f"{what} should contain {x.shape[1]} elements not "
                               f"{self.num_features}")
        factor = 0.0 if self.momentum is None else float(self.momentum)
        if self.training and self.track_running_stats:
            n = self.num_batches_tracked
            self._E.assign_(n, n.detach() + 1)
            if self.momentum is None:
                factor = 1.0 / float(n.item())
        use_batch = self.training or self.running_mean is None
        track = not self.training or self.track_running_stats
        return F.batch_norm(x, self.running_mean if track else None,
                                  self.running_var if track else None, self.weight, self.bias,
                                  use_batch, factor, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch norm of (N, C) or (N, C, L) inputs (statistics over N and L)."""

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm of (N, C, H, W) inputs (statistics over N, H and W)."""

    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch norm of (N, C, D, H, W) inputs (statistics over N, D, H and W)."""

    _dims = (5,)


# Note [SyncBatchNorm on one process]
# transgrad runs in one process on the CPU, so the statistics SyncBatchNorm would gather across
# a process group are the local batch's: it is batch norm of any rank >= 2, as torch's own
# forward is when torch.distributed is not initialised (or the world has one rank).
# ``process_group`` is kept (torch's attribute) and otherwise unused.


class SyncBatchNorm(_BatchNorm):
    """Batch norm of (N, C, *) inputs, synchronised over a process group in torch; on one
    process (transgrad's only case) exactly batch norm (Note [SyncBatchNorm on one process])."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 process_group: Any = None, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, x: Any) -> None:
        if x.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {x.ndim}D input)")

    def forward(self, x: Any) -> Any:
        self._check_input_dim(x)
        if x.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return super().forward(x)

    @classmethod
    def convert_sync_batchnorm(cls, module: Any, process_group: Any = None) -> Any:
        """Every ``BatchNorm*d`` in ``module`` replaced by a SyncBatchNorm sharing its
        parameters and running statistics (the module itself when it is one), as torch."""
        out = module
        if isinstance(module, _BatchNorm) and not module._is_instance_norm:
            out = cls(module.num_features, module.eps, module.momentum, module.affine,
                      module.track_running_stats, process_group)
            if module.affine:
                out.weight = module.weight
                out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in list(module.named_children()):
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
