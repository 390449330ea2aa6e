"""Fixtures for translator tests: write a formula module to a temporary repo and analyse it."""

import textwrap

import pytest

from translator.diagnostics import TranslatorError
from translator.frontend import load_module

HEADER = (
    "from transgrad.lang import (Dims, DType, Optional, Scalar, Sequence, Shape, Tensor, "
    "formula, helper, kernel, ops, samples)\n\n"
)


@pytest.fixture
def repo(tmp_path):
    """A temporary repository root (it has a pyproject.toml), for repo-relative locations."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "formulas").mkdir()
    return tmp_path


@pytest.fixture
def write(repo):
    """write(source, name="mod.py", header=True) -> path of formulas/<name> in the repo."""

    def _write(source, name="mod.py", header=True):
        path = repo / "formulas" / name
        path.write_text((HEADER if header else "") + textwrap.dedent(source))
        return path

    return _write


@pytest.fixture
def analyse(write):
    """analyse(source) -> (module or None, diagnostics)."""

    def _analyse(source, header=True):
        path = write(source, header=header)
        try:
            return load_module(str(path)), []
        except TranslatorError as e:
            return None, list(e.diagnostics)

    return _analyse


@pytest.fixture
def codes(analyse):
    """codes(source) -> sorted list of diagnostic codes."""

    def _codes(source, header=True):
        return sorted(d.code for d in analyse(source, header)[1])

    return _codes
