"""Shared fixtures: every engine-level test runs on both engines.

``engine`` yields ``transgrad.reference`` and ``transgrad`` (compiled). When the compiled engine
is not built the compiled cases are skipped, unless TG_REQUIRE_COMPILED=1 (as in CI), where a
missing ``transgrad._C`` is an error.
"""

import importlib
import os

import pytest


def _compiled():
    try:
        import transgrad

        if transgrad._C is None:
            raise ImportError(str(transgrad._C_error))
        return transgrad
    except ImportError as e:
        if os.environ.get("TG_REQUIRE_COMPILED") == "1":
            raise
        pytest.skip(f"compiled engine not built: {e}")


def load_engine(name):
    if name == "reference":
        return importlib.import_module("transgrad.reference")
    return _compiled()


@pytest.fixture(params=["reference", "compiled"])
def engine(request):
    return load_engine(request.param)


@pytest.fixture
def ref():
    return load_engine("reference")


@pytest.fixture
def compiled():
    return load_engine("compiled")


@pytest.fixture(autouse=True)
def _seeded_generator():
    """Every test starts from the same generator state (as torch's test suite seeds each test):
    the process's generator is otherwise seeded from the OS, as torch's."""
    from transgrad._random import default_generator

    default_generator.manual_seed(0)
    yield
