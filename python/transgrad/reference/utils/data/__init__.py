"""transgrad.reference.utils.data: ``transgrad.utils.data`` whose default collate makes
reference tensors (Note [The engine of a batch] in transgrad/utils/data/_collate.py).

Everything but the DataLoader and the default collate/convert is engine-neutral and is the
very same object as in ``transgrad.utils.data``; the two packages export the same names.
"""

from transgrad.reference.utils.data.dataloader import DataLoader, default_collate, default_convert  # noqa: F401 (re-exported)
from transgrad.utils import data as _shared
from transgrad.utils.data import (  # noqa: F401 (re-exported)
    BatchSampler,
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    RandomSampler,
    Sampler,
    SequentialSampler,
    StackDataset,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    WorkerInfo,
    collate,
    get_worker_info,
    random_split,
)

__all__ = list(_shared.__all__)
