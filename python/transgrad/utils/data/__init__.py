"""transgrad.utils.data: datasets, samplers and the DataLoader, as ``torch.utils.data``.

Engine-neutral: samples are whatever the dataset returns; the default collate stacks tensors
with their own engine and makes new tensors with ``transgrad`` (the twin package
``transgrad.reference.utils.data`` makes reference tensors). Randomness: ``_random``.
"""

from transgrad.utils.data._collate import collate, default_collate, default_convert
from transgrad.utils.data._worker import WorkerInfo, get_worker_info
from transgrad.utils.data.dataloader import DataLoader
from transgrad.utils.data.dataset import (
                                          ChainDataset,
                                          ConcatDataset,
                                          Dataset,
                                          IterableDataset,
                                          StackDataset,
                                          Subset,
                                          TensorDataset,
                                          random_split,
)
from transgrad.utils.data.sampler import (
                                          BatchSampler,
                                          RandomSampler,
                                          Sampler,
                                          SequentialSampler,
                                          SubsetRandomSampler,
                                          WeightedRandomSampler,
)

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
    "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
    "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "WorkerInfo", "collate",
    "default_collate", "default_convert", "get_worker_info", "random_split",
]
