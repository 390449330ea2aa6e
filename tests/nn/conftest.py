"""Fixtures for the nn/optim tests: ``lib`` is the engine's (tg, nn, F, optim)."""

import pytest
from _nnhelpers import nn_of


@pytest.fixture
def lib(engine):
    return nn_of(engine)
