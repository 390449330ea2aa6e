"""``transgrad.nn.modules.loss``: the losses, bound to the compiled engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.loss`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.reference.nn.modules.loss`` (tests/nn/test_nn_namespaces.py keeps the two in
step).
"""

from transgrad._nn.modules import loss as _loss

from .module import Module


class _Loss(_loss._Loss, Module):
    __doc__ = _loss._Loss.__doc__


class _WeightedLoss(_loss._WeightedLoss, _Loss):
    __doc__ = _loss._WeightedLoss.__doc__


class L1Loss(_loss.L1Loss, _Loss):
    __doc__ = _loss.L1Loss.__doc__


class MSELoss(_loss.MSELoss, _Loss):
    __doc__ = _loss.MSELoss.__doc__


class SmoothL1Loss(_loss.SmoothL1Loss, _Loss):
    __doc__ = _loss.SmoothL1Loss.__doc__


class HuberLoss(_loss.HuberLoss, _Loss):
    __doc__ = _loss.HuberLoss.__doc__


class SoftMarginLoss(_loss.SoftMarginLoss, _Loss):
    __doc__ = _loss.SoftMarginLoss.__doc__


class CrossEntropyLoss(_loss.CrossEntropyLoss, _WeightedLoss):
    __doc__ = _loss.CrossEntropyLoss.__doc__


class NLLLoss(_loss.NLLLoss, _WeightedLoss):
    __doc__ = _loss.NLLLoss.__doc__


class BCELoss(_loss.BCELoss, _WeightedLoss):
    __doc__ = _loss.BCELoss.__doc__


class BCEWithLogitsLoss(_loss.BCEWithLogitsLoss, _Loss):
    __doc__ = _loss.BCEWithLogitsLoss.__doc__


class MultiLabelSoftMarginLoss(_loss.MultiLabelSoftMarginLoss, _WeightedLoss):
    __doc__ = _loss.MultiLabelSoftMarginLoss.__doc__


class KLDivLoss(_loss.KLDivLoss, _Loss):
    __doc__ = _loss.KLDivLoss.__doc__


class PoissonNLLLoss(_loss.PoissonNLLLoss, _Loss):
    __doc__ = _loss.PoissonNLLLoss.__doc__


class GaussianNLLLoss(_loss.GaussianNLLLoss, _Loss):
    __doc__ = _loss.GaussianNLLLoss.__doc__


class _MarginLoss(_loss._MarginLoss, _Loss):
    __doc__ = _loss._MarginLoss.__doc__


class CosineEmbeddingLoss(_loss.CosineEmbeddingLoss, _MarginLoss):
    __doc__ = _loss.CosineEmbeddingLoss.__doc__


class MarginRankingLoss(_loss.MarginRankingLoss, _MarginLoss):
    __doc__ = _loss.MarginRankingLoss.__doc__


class HingeEmbeddingLoss(_loss.HingeEmbeddingLoss, _MarginLoss):
    __doc__ = _loss.HingeEmbeddingLoss.__doc__


class TripletMarginLoss(_loss.TripletMarginLoss, _Loss):
    __doc__ = _loss.TripletMarginLoss.__doc__


class CTCLoss(_loss.CTCLoss, _Loss):
    __doc__ = _loss.CTCLoss.__doc__


class MultiMarginLoss(_loss.MultiMarginLoss, _WeightedLoss):
    __doc__ = _loss.MultiMarginLoss.__doc__


class MultiLabelMarginLoss(_loss.MultiLabelMarginLoss, _Loss):
    __doc__ = _loss.MultiLabelMarginLoss.__doc__


__all__ = [
    "L1Loss", "MSELoss", "SmoothL1Loss", "HuberLoss", "SoftMarginLoss", "CrossEntropyLoss",
    "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "MultiLabelSoftMarginLoss", "KLDivLoss",
    "PoissonNLLLoss", "GaussianNLLLoss", "CosineEmbeddingLoss", "MarginRankingLoss",
    "HingeEmbeddingLoss", "TripletMarginLoss", "CTCLoss", "MultiMarginLoss",
    "MultiLabelMarginLoss"
]
