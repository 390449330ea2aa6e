"""The examples run end to end (short runs) on each engine."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "examples"))


def _name(engine):
    return "reference" if engine.__name__.startswith("transgrad.reference") else "compiled"


@pytest.mark.slow
def test_mlp_digits(engine):
    pytest.importorskip("sklearn")
    import mlp_digits

    r = mlp_digits.train(_name(engine), epochs=3, quiet=True)
    assert r["accuracy"] > 0.9, r


def test_tiny_transformer(engine):
    import tiny_transformer

    first = tiny_transformer.train(_name(engine), steps=1, quiet=True)
    r = tiny_transformer.train(_name(engine), steps=40, quiet=True)
    assert np.isfinite(r["loss"]) and r["loss"] < 0.6 * first["loss"], (first, r)
