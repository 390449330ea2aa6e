"""Tests of the compiled engine only (threads, GIL, freeing, deep graphs, its messages)."""

import pytest


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "/tests/compiled/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.compiled)
