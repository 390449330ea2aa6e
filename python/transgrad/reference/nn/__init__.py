"""``transgrad.reference.nn``: Module, Parameter, layers and losses of the reference engine.

The layers are the engine-neutral classes of ``transgrad._nn`` bound to this engine by one-line
subclasses in ``modules/`` (Note [Which engine makes a layer's parameters] in
transgrad/_nn/module.py); ``functional`` and ``utils`` are shared with ``transgrad.nn``.
"""

from . import functional, init, utils
from .modules import (
    ELU,
    GELU,
    AdaptiveAvgPool2d,
    AvgPool2d,
    BatchNorm1d,
    BatchNorm2d,
    BCEWithLogitsLoss,
    Conv1d,
    Conv2d,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Flatten,
    Identity,
    LayerNorm,
    LeakyReLU,
    Linear,
    LogSoftmax,
    MaxPool2d,
    Module,
    ModuleDict,
    ModuleList,
    MSELoss,
    NLLLoss,
    ParameterDict,
    ParameterList,
    ReLU,
    Sequential,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from .parameter import Parameter

__all__ = [
    "Parameter", "functional", "init", "utils", "Module", "Sequential", "ModuleList",
    "ModuleDict", "ParameterList", "ParameterDict", "Identity", "Linear", "Embedding",
    "LayerNorm", "Conv1d", "Conv2d", "BatchNorm1d", "BatchNorm2d", "MaxPool2d", "AvgPool2d",
    "AdaptiveAvgPool2d", "Flatten", "ReLU", "Tanh", "Sigmoid", "SiLU", "GELU", "Softplus",
    "ELU", "LeakyReLU", "Softmax", "LogSoftmax", "Dropout", "CrossEntropyLoss", "NLLLoss",
    "MSELoss", "BCEWithLogitsLoss",
]
