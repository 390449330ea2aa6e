"""Fixtures for the data-loading tests: ``tg`` is an engine, ``data`` its ``utils.data``."""

import importlib

import pytest

_DATA = {"transgrad.reference": "transgrad.reference.utils.data",
         "transgrad": "transgrad.utils.data"}


@pytest.fixture
def data(engine):
    return importlib.import_module(_DATA[engine.__name__])


@pytest.fixture
def tg(engine):
    return engine
