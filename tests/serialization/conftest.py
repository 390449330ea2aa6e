"""Fixtures for the serialization tests: ``ser`` is the engine's save/load module."""

import importlib

import pytest

_SER = {"transgrad.reference": "transgrad.reference.serialization",
        "transgrad": "transgrad.serialization"}


@pytest.fixture
def ser(engine):
    return importlib.import_module(_SER[engine.__name__])


@pytest.fixture
def tg(engine):
    return engine
