"""Fixtures for the optimizer tests: ``lib`` is an engine's (tg, nn, optim), ``torch_lib``
torch's in the same shape (skips without torch)."""

import importlib
import types

import pytest


def namespace(engine):
    nn = importlib.import_module(engine.__name__ + ".nn")
    optim = importlib.import_module(engine.__name__ + ".optim")
    return types.SimpleNamespace(tg=engine, nn=nn, optim=optim)


@pytest.fixture
def lib(engine):
    return namespace(engine)


@pytest.fixture
def torch_lib():
    torch = pytest.importorskip("torch")
    return namespace(torch)
