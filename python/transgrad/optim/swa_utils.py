"""``transgrad.optim.swa_utils``: torch.optim.swa_utils for the compiled engine.

Everything but ``AveragedModel`` is the engine-neutral code of ``transgrad.optim._swa``;
``AveragedModel`` is its ``_AveragedModel`` bound to the compiled engine's Module (the twin of
``transgrad.reference.optim.swa_utils.AveragedModel``).
"""

from transgrad.nn.modules.module import Module
from transgrad.optim import _swa
from transgrad.optim._swa import (
    SWALR,
    get_ema_avg_fn,
    get_ema_multi_avg_fn,
    get_swa_avg_fn,
    get_swa_multi_avg_fn,
    update_bn,
)


class AveragedModel(_swa._AveragedModel, Module):
    __doc__ = _swa._AveragedModel.__doc__


__all__ = ["AveragedModel", "SWALR", "get_ema_avg_fn", "get_ema_multi_avg_fn",
           "get_swa_avg_fn", "get_swa_multi_avg_fn", "update_bn"]
