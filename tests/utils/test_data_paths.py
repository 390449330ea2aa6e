"""torch's import paths resolve under both engines, with the same names."""

import importlib

import pytest

PATHS = ["utils.data", "utils.data.dataloader", "utils.data.dataset", "utils.data.sampler",
         "serialization"]


@pytest.mark.parametrize("root", ["transgrad", "transgrad.reference"])
def test_torch_paths_import(root):
    for path in ("utils.data", "utils.data.dataloader", "serialization"):
        importlib.import_module(f"{root}.{path}")
    dl = importlib.import_module(f"{root}.utils.data.dataloader")
    assert dl.DataLoader.__name__ == "DataLoader"
    assert callable(dl.default_collate) and callable(dl.get_worker_info)


def test_both_engines_export_the_same_names():
    ours = importlib.import_module("transgrad.utils.data")
    ref = importlib.import_module("transgrad.reference.utils.data")
    assert sorted(ours.__all__) == sorted(ref.__all__)
    for name in ours.__all__:
        assert hasattr(ref, name), name
    same = set(ours.__all__) - {"DataLoader", "default_collate", "default_convert"}
    assert all(getattr(ours, n) is getattr(ref, n) for n in same)  # engine-neutral: shared
    assert issubclass(ref.DataLoader, ours.DataLoader)


def test_names_torch_programs_use_exist():
    torch = pytest.importorskip("torch")
    ours = importlib.import_module("transgrad.utils.data")
    for name in ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset",
                 "StackDataset", "Subset", "random_split", "Sampler", "SequentialSampler",
                 "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
                 "BatchSampler", "DataLoader", "default_collate", "default_convert",
                 "get_worker_info"]:
        assert hasattr(torch.utils.data, name) and hasattr(ours, name), name
    import inspect

    for name in ["DataLoader", "RandomSampler", "WeightedRandomSampler", "BatchSampler",
                 "random_split", "SubsetRandomSampler"]:
        theirs = inspect.signature(getattr(torch.utils.data, name))
        mine = inspect.signature(getattr(ours, name))
        assert [(p.name, p.default, p.kind) for p in mine.parameters.values()] == [
            (p.name, p.default if p.default is not torch.utils.data.dataset.default_generator
             else None, p.kind) for p in theirs.parameters.values()], name
    import transgrad.serialization as ser

    for fn in ("save", "load"):
        theirs = [(p.name, p.kind) for p in inspect.signature(getattr(torch, fn)).parameters
                  .values()]
        mine = [(p.name, p.kind) for p in inspect.signature(getattr(ser, fn)).parameters.values()]
        assert mine == theirs, fn
