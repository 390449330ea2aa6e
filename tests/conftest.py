"""Shared fixtures: every engine-level test runs on both engines.

``engine`` yields ``transgrad.reference`` and ``transgrad`` (compiled). When the compiled engine
is not built the compiled cases are skipped, unless TG_REQUIRE_COMPILED=1 (as in CI), where a
missing ``transgrad._C`` is an error.

Note [Hypothesis profiles]
With ``CI`` set, hypothesis runs the "ci" profile: derandomized (every run draws the same
examples, so a CI failure reproduces locally with ``CI=1``), a fixed ``max_examples`` for tests
that do not set their own, no deadline (a shared machine's timing is no verdict). Elsewhere the
"dev" profile draws at random and keeps the examples that failed in
``tests/hypothesis-examples`` (committed: they are replayed first on every dev run, as regression
examples; derandomize ignores any database, so a failure worth keeping in CI becomes an
``@example`` on its test).
"""

import importlib
import os
import pathlib

import pytest
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

settings.register_profile("ci", derandomize=True, max_examples=50, deadline=None,
                          print_blob=True)
settings.register_profile(
    "dev", deadline=None,
    database=DirectoryBasedExampleDatabase(pathlib.Path(__file__).parent / "hypothesis-examples"))
settings.load_profile("ci" if os.environ.get("CI") else "dev")


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
