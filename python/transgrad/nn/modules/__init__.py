"""``transgrad.nn.modules``: the layers of the compiled engine, one file per kind as in torch."""

from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .linear import Identity, Linear
from .sparse import Embedding
from .normalization import LayerNorm
from .conv import Conv1d, Conv2d
from .batchnorm import BatchNorm1d, BatchNorm2d
from .pooling import MaxPool2d, AvgPool2d, AdaptiveAvgPool2d
from .flatten import Flatten
from .activation import (
    ReLU, Tanh, Sigmoid, SiLU, GELU, Softplus, ELU, LeakyReLU, Softmax, LogSoftmax,
)
from .dropout import Dropout
from .loss import CrossEntropyLoss, NLLLoss, MSELoss, BCEWithLogitsLoss

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
    "Identity", "Linear", "Embedding", "LayerNorm", "Conv1d", "Conv2d", "BatchNorm1d",
    "BatchNorm2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "Flatten", "ReLU", "Tanh",
    "Sigmoid", "SiLU", "GELU", "Softplus", "ELU", "LeakyReLU", "Softmax", "LogSoftmax",
    "Dropout", "CrossEntropyLoss", "NLLLoss", "MSELoss", "BCEWithLogitsLoss",
]
