"""Fixtures for the distributions tests: ``lib`` is an engine with its distributions package
(``lib.tg`` the engine, ``lib.D`` its distributions, ``lib.t(x)`` a float64 tensor of it)."""

import pytest
from _disthelpers import make_lib


@pytest.fixture
def lib(engine):
    return make_lib(engine)
