"""The new optimizers and every lr_scheduler class have torch's signature: parameter names,
order, kinds and defaults (torch is the specification for the names we share with it)."""

import inspect

import pytest
from transgrad.optim import lr_scheduler as S

OPTIMIZERS = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
              "LBFGS"]


def shape(cls):
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]  # without self
    return [(p.name, p.kind, p.default) for p in params]


@pytest.mark.torch
@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_signature_is_torchs(lib, name):
    torch = pytest.importorskip("torch")
    assert shape(getattr(lib.optim, name)) == shape(getattr(torch.optim, name))


@pytest.mark.torch
def test_every_torch_scheduler_is_here_with_its_signature():
    torch = pytest.importorskip("torch")
    theirs = torch.optim.lr_scheduler
    assert set(theirs.__all__) <= set(S.__all__)
    for name in theirs.__all__:
        assert shape(getattr(S, name)) == shape(getattr(theirs, name)), name
