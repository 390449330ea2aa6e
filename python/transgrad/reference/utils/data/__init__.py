"""transgrad.reference.utils.data: ``transgrad.utils.data`` whose default collate makes
reference tensors (Note [The engine of a batch] in transgrad/utils/data/_collate.py).

Everything but the DataLoader and the default collate/convert is engine-neutral and is the
very same object as in ``transgrad.utils.data``.
"""

from transgrad.reference.utils.data.dataloader import DataLoader, default_collate, default_convert
from transgrad.utils.data import (BatchSampler, ChainDataset, ConcatDataset, Dataset,
                                  IterableDataset, RandomSampler, Sampler, SequentialSampler,
                                  StackDataset, Subset, SubsetRandomSampler, TensorDataset,
                                  WeightedRandomSampler, WorkerInfo, collate, get_worker_info,
                                  random_split)

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
    "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset",
    "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "WorkerInfo", "collate",
    "default_collate", "default_convert", "get_worker_info", "random_split",
]
